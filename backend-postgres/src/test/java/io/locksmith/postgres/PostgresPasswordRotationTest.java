package io.locksmith.postgres;

import io.locksmith.tck.server.SecretChecks;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockStoreException;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A password rotated while the application runs, with {@code passwordFile} (docs/POSTGRES.md, "Rotating the
 * password"): {@code ALTER ROLE ... PASSWORD} leaves open sessions alone and checks the password of new ones, so the
 * test ends the client's sessions ({@code pg_terminate_backend}) as a restart or a connection lifetime would; the
 * sessions the pool and the listener open again read the file. The server takes the role only over TLS with its
 * password (scram-sha-256).
 */
class PostgresPasswordRotationTest {

    private static final String SCHEMA = "rotation_locks";

    private static TestCertificates certificates;
    private static PostgresServer postgres;

    private String role;
    private Path dir;
    private Path file;

    @BeforeAll
    static void startPostgres() {
        certificates = TestCertificates.create("postgres-rotation");
        postgres = PostgresServer.startWithTls(certificates);
        LockClient.open(postgres.uri("schema=" + SCHEMA)).close(); // the administrator creates the schema
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
        if (certificates != null) {
            ServerProcess.deleteRecursively(certificates.dir());
        }
    }

    @BeforeEach
    void roleWithPasswordFile() throws IOException {
        role = "rotating_" + System.nanoTime();
        String first = "First-pw-" + System.nanoTime();
        postgres.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + first + "'");
        new PostgresSchema(SCHEMA).grants(role).forEach(postgres::execute);
        dir = Files.createTempDirectory("locksmith-postgres-secret-");
        file = dir.resolve("password");
        Files.writeString(file, first + "\n");
    }

    @AfterEach
    void removeFile() throws IOException {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
    }

    private String uri() {
        return "postgres://" + role + "@127.0.0.1:" + postgres.port() + "/postgres?pool=2&schema=" + SCHEMA
                + "&sslmode=verify-full&sslrootcert=" + certificates.caCert() + "&passwordFile=" + file
                + "&lease=2s&timeout=2s&connectTimeout=3s";
    }

    private static String unique(TestInfo test) {
        return test.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime();
    }

    /** The process ids of the role's sessions. */
    private Set<Integer> sessions() throws SQLException {
        Set<Integer> pids = new HashSet<>();
        try (Connection connection = postgres.connect(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT pid FROM pg_stat_activity WHERE usename = '" + role
                     + "'")) {
            while (rows.next()) {
                pids.add(rows.getInt(1));
            }
        }
        return pids;
    }

    /** Changes the role's password and ends its sessions: the next ones must log in with the new password. */
    private Set<Integer> rotateOnTheServer(String password) throws SQLException {
        Set<Integer> before = sessions();
        postgres.execute("ALTER ROLE " + role + " PASSWORD '" + password + "'");
        postgres.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + role + "'");
        return before;
    }

    @Test
    void passwordRotatedInTheFileAndOnTheServerKeepsTheHeldLockAndTakesNewOnes(TestInfo test) throws Exception {
        String name = unique(test);
        try (LockClient client = LockClient.open(uri())) {
            assertTrue(client.describe().contains("passwordFile=" + file), client.describe());
            Lease held = client.lock(name).acquire(Duration.ofSeconds(5));
            long token = held.fencingToken();
            // pool=2 plus the listening connection
            await("the client's three sessions").atMost(Duration.ofSeconds(10)).until(() -> sessions().size() >= 3);
            String next = "Next-pw-" + System.nanoTime();
            Files.writeString(file, next);
            Set<Integer> killed = rotateOnTheServer(next);
            await("the client's sessions are open again, logged in with the new password")
                    .atMost(Duration.ofSeconds(15)).until(() -> {
                        Set<Integer> now = sessions();
                        now.retainAll(killed);
                        return now.isEmpty() && sessions().size() >= 3;
                    });
            await("the holding outlives three lease times after the change").during(Duration.ofSeconds(6))
                    .atMost(Duration.ofSeconds(10)).until(held::isHeld);
            assertEquals(token, client.inspect(name).orElseThrow().fencingToken());
            try (Lease other = client.lock(name + "-after").acquire(Duration.ofSeconds(5))) {
                assertTrue(other.isHeld());
            }
            held.close();
            // A waiter is still woken by the listening connection, which logged in again with the new password.
            try (Lease first = client.lock(name).acquire(Duration.ofSeconds(5));
                 LockClient other = LockClient.open(uri())) {
                var waiting = java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> other.lock(name).acquire(Duration.ofSeconds(10)));
                first.close();
                try (Lease second = waiting.get(15, java.util.concurrent.TimeUnit.SECONDS)) {
                    assertTrue(second.isHeld());
                }
            }
        }
    }

    @Test
    void stalePasswordInTheFileFailsNamingTheStoreAndTheFileAndTheFileUpdatedLaterIsUsed(TestInfo test)
            throws Exception {
        String name = unique(test);
        String stale = Files.readString(file).strip();
        try (LockClient client = LockClient.open(uri())) {
            Lease held = client.lock(name).acquire(Duration.ofSeconds(5));
            String next = "Next-pw-" + System.nanoTime();
            rotateOnTheServer(next);
            await("the holding is reported lost").atMost(Duration.ofSeconds(20)).until(() -> !held.isHeld());
            held.close();
            LockStoreException refused = assertThrows(LockStoreException.class, () -> client.inspect(name));
            assertTrue(refused.getMessage().contains("refused the login of role '" + role + "'"),
                    refused.getMessage());
            assertTrue(refused.getMessage().contains("the password file '" + file + "'"), refused.getMessage());
            assertTrue(refused.getMessage().contains("127.0.0.1:" + postgres.port()), refused.getMessage());
            String trace = trace(refused);
            assertFalse(trace.contains(stale), trace);
            assertFalse(trace.contains(next), trace);
            Files.writeString(file, next + "\n");
            try (Lease again = client.lock(name).acquire(Duration.ofSeconds(10))) {
                assertTrue(again.isHeld());
            }
        }
    }

    @Test
    void wrongPasswordInTheFileFailsTheOpenNamingTheFile() throws Exception {
        String wrong = "Wr0ng-" + System.nanoTime();
        Files.writeString(file, wrong);
        LockStoreException e = assertThrows(LockStoreException.class, () -> LockClient.open(uri()));
        assertTrue(e.getMessage().contains("refused the login of role '" + role + "'"), e.getMessage());
        assertTrue(e.getMessage().contains("the password file '" + file + "'"), e.getMessage());
        assertFalse(trace(e).contains(wrong), trace(e));
    }

    private static String trace(Throwable e) {
        return SecretChecks.fullText(e);
    }
}
