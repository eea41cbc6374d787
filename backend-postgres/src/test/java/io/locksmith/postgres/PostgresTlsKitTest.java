package io.locksmith.postgres;

import io.locksmith.tck.server.SecretChecks;
import io.locksmith.LockClient;
import io.locksmith.LockException;
import io.locksmith.LockStoreException;
import io.locksmith.tck.TckBase;
import io.locksmith.tck.kits.ExclusionKit;
import io.locksmith.tck.kits.ExpiryKit;
import io.locksmith.tck.kits.FencingKit;
import io.locksmith.tck.kits.OwnershipKit;
import io.locksmith.tck.kits.WaitingKit;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kit's basic rules (exclusion, ownership, fencing, expiry, waiting by LISTEN/NOTIFY) over TLS with
 * {@code sslmode=verify-full} against a server whose certificate the harness made, as a role with a password and
 * only the documented grants; the server refuses that role without TLS. And the failures at start: a certificate
 * from an authority the client does not trust, a wrong password, no TLS; each names the store and never the password.
 * Rule R2.6 (ACCESS_CONTROL) runs here, where the server asks the role for its password: another application's role,
 * a wrong password and none cannot touch a held lock's row.
 */
class PostgresTlsKitTest extends TckBase implements ExclusionKit, OwnershipKit, FencingKit, ExpiryKit, WaitingKit {

    private static final String SCHEMA = "tls_locks";
    private static final String ROLE = "tls_app";
    private static final String PASSWORD = "Tls-s3cret-9f2";

    private static TestCertificates certificates;
    private static TestCertificates otherAuthority;
    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        certificates = TestCertificates.create("postgres");
        otherAuthority = TestCertificates.create("other");
        postgres = PostgresServer.startWithTls(certificates);
        postgres.execute("CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + PASSWORD + "'");
        LockClient.open(postgres.uri("schema=" + SCHEMA)).close(); // the administrator creates the schema
        new PostgresSchema(SCHEMA).grants(ROLE).forEach(postgres::execute);
        // R2.6's attacker: another application's role, with its password and no grant on the lock schema.
        postgres.execute("CREATE ROLE " + OTHER_ROLE + " LOGIN PASSWORD '" + OTHER_PASSWORD + "'");
    }

    private static final String OTHER_ROLE = "orders_app";
    private static final String OTHER_PASSWORD = "Orders-s3cret-4a1";

    /**
     * R2.6: a JDBC session over the same TLS as the lock role, another application's role, the lock role with a wrong
     * password, or without one (the server refuses the last two at login).
     */
    @Override
    protected io.locksmith.tck.RawStoreSession rawStoreSession(io.locksmith.tck.RawStoreSession.Identity identity)
            throws SQLException {
        java.util.Properties login = new java.util.Properties();
        login.setProperty("sslmode", "verify-full");
        login.setProperty("sslrootcert", certificates.caCert().toString());
        switch (identity) {
            case APPLICATION -> login(login, ROLE, PASSWORD);
            case OTHER_USER -> login(login, OTHER_ROLE, OTHER_PASSWORD);
            case WRONG_PASSWORD -> login(login, ROLE, "Wr0ng-" + PASSWORD);
            case NO_CREDENTIALS -> login(login, ROLE, null);
        }
        return new PostgresRawSession(java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:"
                + postgres.port() + "/postgres", login), SCHEMA);
    }

    private static void login(java.util.Properties login, String role, String password) {
        login.setProperty("user", role);
        if (password != null) {
            login.setProperty("password", password);
        }
    }

    /** ACCESS_CONTROL needs the server to ask for the password: the trust-authenticated kits do not declare it. */
    @Test
    void accessControlIsDeclaredOnlyWhereTheServerAsksForThePassword() {
        try (LockClient guarded = newClient(); LockClient trusted = LockClient.open(postgres.uri("schema=" + SCHEMA))) {
            assertTrue(guarded.capabilities().contains(io.locksmith.Capability.ACCESS_CONTROL));
            assertFalse(trusted.capabilities().contains(io.locksmith.Capability.ACCESS_CONTROL),
                    "the superuser logs in without a password (trust): no access control to promise");
        }
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
        for (TestCertificates files : new TestCertificates[] {certificates, otherAuthority}) {
            if (files != null) {
                ServerProcess.deleteRecursively(files.dir());
            }
        }
    }

    private static String uri(String password, String tls) {
        return "postgres://" + ROLE + ":" + password + "@127.0.0.1:" + postgres.port() + "/postgres?pool=2&schema="
                + SCHEMA + "&" + tls;
    }

    private static String verifyFull(TestCertificates trusted) {
        return "sslmode=verify-full&sslrootcert=" + trusted.caCert();
    }

    @Override
    protected String storeUri() {
        return uri(PASSWORD, verifyFull(certificates));
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        postgres.expire(SCHEMA, lockName);
    }

    /** The premise of the kit's rules above: the client's sessions, the listening one included, are encrypted. */
    @Test
    void everySessionOfTheClientUsesTls() throws SQLException {
        try (LockClient client = newClient(); var lease = client.lock("tls-" + System.nanoTime())
                .acquire(Duration.ofSeconds(5))) {
            // pool=2 plus the listening connection; the pool fills in the background.
            await("the client's three sessions").atMost(Duration.ofSeconds(10)).until(() -> sessions()[0] >= 3);
            long[] sessions = sessions();
            assertEquals(sessions[0], sessions[1], "sessions with TLS of " + sessions[0]);
        }
    }

    /** The role's sessions, and how many of them use TLS. */
    private static long[] sessions() throws SQLException {
        try (Connection connection = postgres.connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*), count(*) FILTER (WHERE s.ssl)"
                     + " FROM pg_stat_activity a JOIN pg_stat_ssl s ON s.pid = a.pid WHERE a.usename = '" + ROLE + "'")) {
            row.next();
            return new long[] {row.getLong(1), row.getLong(2)};
        }
    }

    @Test
    void aCertificateFromAnotherAuthorityFailsTheStartNamingTheStoreNotThePassword() {
        LockStoreException error = assertThrows(LockStoreException.class,
                () -> LockClient.open(uri(PASSWORD, verifyFull(otherAuthority))).close());
        assertNamesTheStoreNotThePassword(error, PASSWORD);
        assertTrue(error.getMessage().contains("TLS handshake failed"), error.getMessage());
        assertTrue(error.getMessage().contains(otherAuthority.caCert().toString()), error.getMessage());
    }

    @Test
    void aWrongPasswordFailsTheStartNamingTheStoreNotThePassword() {
        String wrong = "Wr0ng-" + PASSWORD;
        LockStoreException error = assertThrows(LockStoreException.class,
                () -> LockClient.open(uri(wrong, verifyFull(certificates))).close());
        assertNamesTheStoreNotThePassword(error, wrong);
        assertTrue(error.getMessage().contains("refused the login of role '" + ROLE + "'"), error.getMessage());
    }

    @Test
    void withoutTlsTheRoleIsRefusedNamingTheStoreNotThePassword() {
        LockStoreException error = assertThrows(LockStoreException.class,
                () -> LockClient.open(uri(PASSWORD, "sslmode=disable")).close());
        assertNamesTheStoreNotThePassword(error, PASSWORD);
        assertTrue(error.getMessage().contains("refused the login"), error.getMessage());
    }

    private static void assertNamesTheStoreNotThePassword(LockException error, String password) {
        assertTrue(error.getMessage().contains("postgres://" + ROLE + "@127.0.0.1:" + postgres.port() + "/postgres"),
                error.getMessage());
        SecretChecks.assertNoSecret(error, password);
    }
}
