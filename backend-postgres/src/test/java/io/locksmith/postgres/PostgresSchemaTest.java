package io.locksmith.postgres;

import io.locksmith.HolderIdentity;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockInfo;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The schema at start, the rights a role needs, names at the length limit, and notifications across a reconnect. */
class PostgresSchemaTest {

    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
        // A role like an application's: it may log in and use what it is granted, and create nothing.
        postgres.execute("CREATE ROLE app LOGIN");
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    /**
     * A connection that breaks while the schema is created is reported by what broke it, not by the failed rollback
     * after it ("This connection has been closed"): found when a client of a standby pair failed to open in CI with
     * only "Connection is closed" to show.
     */
    @Test
    void aConnectionThatBreaksWhileCreatingIsReportedByWhatBrokeIt() throws Exception {
        try (java.sql.Connection broken = postgres.connect()) {
            int pid;
            try (java.sql.Statement statement = broken.createStatement();
                 java.sql.ResultSet result = statement.executeQuery("SELECT pg_backend_pid()")) {
                result.next();
                pid = result.getInt(1);
            }
            postgres.execute("SELECT pg_terminate_backend(" + pid + ")");
            io.locksmith.LockStoreException failure = org.junit.jupiter.api.Assertions.assertThrows(
                    io.locksmith.LockStoreException.class, () -> new PostgresSchema(freshSchema()).create(broken, "test"));
            java.sql.SQLException cause = (java.sql.SQLException) failure.getCause();
            org.junit.jupiter.api.Assertions.assertNotEquals("08003", cause.getSQLState(), "the failure shown is the"
                    + " rollback's on the closed connection, not what closed it: " + failure.getMessage());
        }
    }

    private static String freshSchema() {
        return "s" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    private static String appUri(String parameters) {
        return "postgres://app@127.0.0.1:" + postgres.port() + "/postgres?" + parameters;
    }

    private static PostgresLockProvider provider(String uri) {
        return (PostgresLockProvider) new PostgresLockProviderFactory().create(LockUri.parse(uri),
                new ProviderContext("test", (grant, reason, cause) -> { }));
    }

    @Test
    void clientsStartingTogetherCreateTheSchemaOnce() {
        String schema = freshSchema();
        List<CompletableFuture<LockClient>> starting = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            starting.add(CompletableFuture.supplyAsync(() -> LockClient.open(postgres.uri("schema=" + schema))));
        }
        List<LockClient> clients = starting.stream().map(CompletableFuture::join).toList();
        try {
            try (Lease lease = clients.get(0).lock("created").acquire(Duration.ofSeconds(5))) {
                assertTrue(clients.get(1).lock("created").tryAcquire().isEmpty(), "the clients use different tables");
            }
        } finally {
            clients.forEach(LockClient::close);
        }
    }

    @Test
    void aRoleThatMayNotCreateIsToldWhatToDo() {
        LockConfigurationException error = assertThrows(LockConfigurationException.class,
                () -> LockClient.open(appUri("schema=" + freshSchema())).close());
        assertTrue(error.getMessage().contains("may not create the lock table"), error.getMessage());
        assertTrue(error.getMessage().contains("createSchema=false"), error.getMessage());
    }

    @Test
    void withoutCreationMissingTablesAndRightsAreNamed() {
        String schema = freshSchema();
        LockConfigurationException missing = assertThrows(LockConfigurationException.class,
                () -> LockClient.open(appUri("schema=" + schema + "&createSchema=false")).close());
        assertTrue(missing.getMessage().contains("schema " + schema + " is missing"), missing.getMessage());

        // An owner runs the DDL (here: a superuser client creates it), but grants nothing yet.
        LockClient.open(postgres.uri("schema=" + schema)).close();
        postgres.execute("GRANT USAGE ON SCHEMA " + schema + " TO app");
        LockConfigurationException noRights = assertThrows(LockConfigurationException.class,
                () -> LockClient.open(appUri("schema=" + schema + "&createSchema=false")).close());
        assertTrue(noRights.getMessage().contains("role app lacks SELECT, INSERT, UPDATE on table " + schema
                + ".locksmith_locks"), noRights.getMessage());

        new PostgresSchema(schema).grants("app").forEach(postgres::execute);
        // With the default createSchema=true too: nothing is missing, so nothing needs the CREATE right.
        try (LockClient app = LockClient.open(appUri("schema=" + schema));
             Lease lease = app.lock("granted").acquire(Duration.ofSeconds(5))) {
            assertTrue(lease.fencingToken() > 0);
        }
    }

    /** The DDL and the GRANTs an administrator copies from docs/POSTGRES.md are the ones the client checks for. */
    @Test
    void theDocumentedScriptIsTheSchemaAndTheGrantsTheClientChecks() {
        PostgresSchema schema = new PostgresSchema("public");
        List<String> expected = new ArrayList<>();
        schema.ddl().forEach(statement -> expected.add(PostgresDocs.normalize(statement)));
        schema.grants("app").forEach(statement -> expected.add(PostgresDocs.normalize(statement)));
        assertEquals(expected, PostgresDocs.schemaScript("public", "app"));
    }

    /**
     * Every privilege of the documented grants is needed and checked at start: with all but one, the start fails
     * naming that privilege and its object (with createSchema true and false), and succeeds once it is granted.
     */
    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("eachPrivilege")
    void aMissingPrivilegeFailsTheStartNamingItAndItsObject(String privilege, String objectType, String objectName) {
        String schema = freshSchema();
        String role = "r" + schema;
        String object = objectType + " " + schema + (objectName.isEmpty() ? "" : "." + objectName);
        postgres.execute("CREATE ROLE " + role + " LOGIN");
        LockClient.open(postgres.uri("schema=" + schema)).close(); // the administrator creates the schema
        new PostgresSchema(schema).grants(role).forEach(postgres::execute);
        postgres.execute("REVOKE " + privilege + " ON " + object + " FROM " + role);
        String uri = "postgres://" + role + "@127.0.0.1:" + postgres.port() + "/postgres?pool=1&schema=" + schema;
        for (String createSchema : List.of("true", "false")) {
            LockConfigurationException error = assertThrows(LockConfigurationException.class,
                    () -> LockClient.open(uri + "&createSchema=" + createSchema).close());
            assertTrue(error.getMessage().contains("role " + role + " lacks " + privilege + " on " + object),
                    "expected '" + privilege + " on " + object + "' in: " + error.getMessage());
        }
        postgres.execute("GRANT " + privilege + " ON " + object + " TO " + role);
        try (LockClient app = LockClient.open(uri + "&createSchema=false");
             Lease lease = app.lock("granted").acquire(Duration.ofSeconds(5))) {
            assertTrue(lease.fencingToken() > 0);
        }
    }

    static List<org.junit.jupiter.params.provider.Arguments> eachPrivilege() {
        List<org.junit.jupiter.params.provider.Arguments> cases = new ArrayList<>();
        cases.add(org.junit.jupiter.params.provider.Arguments.of("USAGE", "schema", ""));
        new PostgresSchema("s").requiredTablePrivileges().forEach((table, privileges) -> privileges.forEach(privilege ->
                cases.add(org.junit.jupiter.params.provider.Arguments.of(privilege, "table",
                        table.substring(table.indexOf('.') + 1)))));
        cases.add(org.junit.jupiter.params.provider.Arguments.of("USAGE", "sequence", PostgresSchema.FENCE));
        return cases;
    }

    @Test
    void theLongestNameInFourByteCharactersIsOneLock() {
        // U+1F512 is two UTF-16 chars and four UTF-8 bytes: 512 chars, the limit of LockNames, and 1024 bytes.
        String name = "\uD83D\uDD12".repeat(256);
        try (LockClient first = LockClient.open(postgres.uri("")); LockClient second = LockClient.open(postgres.uri(""))) {
            try (Lease lease = first.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(second.lock(name).tryAcquire().isEmpty(), "a long name was not one lock");
                assertTrue(second.lock(name.substring(0, 510)).tryAcquire().map(l -> {
                    l.close();
                    return true;
                }).orElse(false), "a prefix of a long name was the same lock");
                LockInfo info = second.inspect(name).orElseThrow();
                assertEquals(lease.fencingToken(), info.fencingToken());
            }
        }
    }

    @Test
    void theSameHoldingAskingAgainKeepsItsToken() {
        try (PostgresLockProvider provider = provider(postgres.uri(""))) {
            Owner owner = new Owner("retry-" + UUID.randomUUID(), new HolderIdentity("test", "host", "main", 1, null));
            AcquireRequest request = new AcquireRequest("retry-" + UUID.randomUUID(), owner, Duration.ofSeconds(5), false);
            Grant first = provider.tryAcquire(request).orElseThrow();
            Grant again = provider.tryAcquire(request).orElseThrow();
            assertEquals(first.fencingToken(), again.fencingToken());
            assertTrue(provider.release(again));
        }
    }

    @Test
    void anAbandonedAcquireArrivingLateIsRefused() {
        try (PostgresLockProvider provider = provider(postgres.uri(""))) {
            Owner owner = new Owner("late-" + UUID.randomUUID(), new HolderIdentity("test", "host", "main", 1, null));
            String name = "late-" + UUID.randomUUID();
            provider.releaseAmbiguous(name, owner);
            Optional<Grant> late = provider.tryAcquire(new AcquireRequest(name, owner, Duration.ofSeconds(5), false));
            assertTrue(late.isEmpty(), "an acquire its client had given up took the lock");
            assertTrue(provider.inspect(name).isEmpty());
        }
    }

    /**
     * An acquire that waits for the row (another session holds its lock) must draw its token after that
     * session committed: here that session is a holder who takes the name with a new token and frees it
     * meanwhile, and the waiting acquire's token must be above it (found by the safety runs under load).
     */
    @Test
    void theTokenIsDrawnUnderTheRowLock() throws Exception {
        String name = "order-" + UUID.randomUUID();
        try (PostgresLockProvider provider = provider(postgres.uri(""))) {
            releaseOnce(provider, name);
            long otherToken;
            try (java.sql.Connection other = postgres.connect()) {
                other.setAutoCommit(false);
                try (java.sql.Statement statement = other.createStatement()) {
                    statement.execute("SELECT 1 FROM public.locksmith_locks WHERE name = '" + name.replace("'", "''")
                            + "' FOR UPDATE");
                }
                Owner owner = new Owner("slow-" + UUID.randomUUID(), new HolderIdentity("test", "host", "main", 1, null));
                CompletableFuture<Optional<Grant>> slow = CompletableFuture.supplyAsync(() ->
                        provider.tryAcquire(new AcquireRequest(name, owner, Duration.ofSeconds(5), false)));
                await("the acquire to wait for the row lock").atMost(Duration.ofSeconds(10)).until(() ->
                        waitingForALock());
                try (java.sql.Statement statement = other.createStatement();
                     java.sql.ResultSet rows = statement.executeQuery("UPDATE public.locksmith_locks SET"
                             + " token = nextval('public.locksmith_fence'), owner_id = '', holder = '',"
                             + " expires_at = '-infinity' WHERE name = '" + name.replace("'", "''") + "' RETURNING token")) {
                    rows.next();
                    otherToken = rows.getLong(1);
                }
                other.commit();
                Grant grant = slow.get(10, java.util.concurrent.TimeUnit.SECONDS).orElseThrow();
                assertTrue(grant.fencingToken() > otherToken, "an acquire that waited for the row was granted token "
                        + grant.fencingToken() + ", not above the token " + otherToken + " of a holding that came and went");
                provider.release(grant);
            }
        }
    }

    private static boolean waitingForALock() {
        try (java.sql.Connection connection = postgres.connect(); java.sql.Statement statement = connection.createStatement();
             java.sql.ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE wait_event_type = 'Lock' AND query LIKE '%locksmith_locks%'")) {
            rows.next();
            return rows.getLong(1) > 0;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void waitersAreWokenAgainAfterTheListeningConnectionIsLost() {
        String name = "listen-" + UUID.randomUUID();
        try (PostgresLockProvider waiter = provider(postgres.uri("")); PostgresLockProvider holder = provider(postgres.uri(""))) {
            AtomicInteger wakes = new AtomicInteger();
            try (AutoCloseable subscription = waiter.subscribe(name, wakes::incrementAndGet)) {
                await().atMost(Duration.ofSeconds(10)).until(waiter::isListening);
                releaseOnce(holder, name);
                await("a release notification").atMost(Duration.ofSeconds(5)).until(() -> wakes.get() >= 1);

                int before = wakes.get();
                postgres.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'"
                        + " OR (backend_type = 'client backend' AND pid <> pg_backend_pid() AND state = 'idle'"
                        + " AND query = 'SELECT 1')");
                // Lost notifications are made up for: every waiter is woken when the connection fails or comes back.
                await("a wake after the listening connection was lost").atMost(Duration.ofSeconds(10))
                        .until(() -> wakes.get() > before);
                await().atMost(Duration.ofSeconds(10)).until(waiter::isListening);
                int afterReconnect = wakes.get();
                releaseOnce(holder, name);
                await("a release notification after the reconnect").atMost(Duration.ofSeconds(5))
                        .until(() -> wakes.get() > afterReconnect);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void aWaiterSubscribedBeforeTheFirstListenIsWokenOnceItHolds() throws Exception {
        // The listening connection of a new client is opened on its own thread: a waiter can subscribe, fail its
        // attempt and see the holder release before LISTEN is in place. That notification is lost, so the
        // listener must wake every subscriber once LISTEN holds (TCK rule R7.10 failed on this once in CI).
        String channel = "c" + UUID.randomUUID().toString().replace("-", "");
        String name = "early-" + UUID.randomUUID();
        java.util.concurrent.CountDownLatch connectAllowed = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.ScheduledExecutorService scheduler =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        ReleaseListener listener = new ReleaseListener(() -> {
            try {
                connectAllowed.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.sql.SQLException("interrupted while connecting", e);
            }
            return postgres.connect();
        }, channel, "test store", scheduler, "test-listener");
        AtomicInteger wakes = new AtomicInteger();
        try {
            listener.start();
            listener.subscribe(name, wakes::incrementAndGet);
            postgres.execute("SELECT pg_notify('" + channel + "', '" + name + "')"); // nobody listens yet: lost
            connectAllowed.countDown();
            await("a wake once LISTEN holds").atMost(Duration.ofSeconds(10)).until(() -> wakes.get() >= 1);
            assertTrue(listener.isListening());
        } finally {
            connectAllowed.countDown();
            listener.close();
            scheduler.shutdownNow();
        }
    }

    private static void releaseOnce(PostgresLockProvider provider, String name) {
        Owner owner = new Owner("h-" + UUID.randomUUID(), new HolderIdentity("test", "host", "main", 1, null));
        Grant grant = provider.tryAcquire(new AcquireRequest(name, owner, Duration.ofSeconds(5), false)).orElseThrow();
        assertTrue(provider.release(grant));
    }
}
