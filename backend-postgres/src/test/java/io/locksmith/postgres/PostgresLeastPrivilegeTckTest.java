package io.locksmith.postgres;

import io.locksmith.Capability;
import io.locksmith.LockClient;
import io.locksmith.LockStoreException;
import io.locksmith.tck.RawStoreSession;
import io.locksmith.tck.StoreTck;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Properties;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store kit with every client logged in as a role that has only the grants docs/POSTGRES.md lists: an
 * administrator ran the doc's script once (the DDL and the GRANTs, read from the doc itself), and the role owns
 * nothing, may create nothing and may not delete a lock row. A statement of the backend that needs more than those
 * grants fails its rule here. The role logs in with its password over TLS ({@code sslmode=verify-full}, certificates
 * the harness made): the server ({@code StoreServers.postgresWithTls}) lets it in no other way, so every rule ran over
 * TLS with authentication. The server asks for the password, so the provider declares {@code ACCESS_CONTROL} and
 * R2.6 runs here too: another application's role, a wrong password and none cannot touch a held lock's row.
 */
class PostgresLeastPrivilegeTckTest extends StoreTck {

    private static final String SCHEMA = "least_privilege";
    private static final String ROLE = "locksmith_app";
    private static final String PASSWORD = "Least-s3cret-2c7";
    /** R2.6's attacker: another application's role, with its password and no grant on the lock schema. */
    private static final String OTHER_ROLE = "orders_app";
    private static final String OTHER_PASSWORD = "Orders-s3cret-8d3";

    private static TestCertificates certificates;
    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        certificates = TestCertificates.create("postgres");
        postgres = PostgresServer.startWithTls(certificates);
        postgres.execute("CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + PASSWORD + "'");
        for (String statement : PostgresDocs.schemaScript(SCHEMA, ROLE)) {
            postgres.execute(statement);
        }
        postgres.execute("CREATE ROLE " + OTHER_ROLE + " LOGIN PASSWORD '" + OTHER_PASSWORD + "'");
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

    private static String uri(String tls) {
        // The default createSchema=true: the objects exist, so the client creates nothing and needs no CREATE right.
        return "postgres://" + ROLE + ":" + PASSWORD + "@127.0.0.1:" + postgres.port() + "/postgres?schema=" + SCHEMA
                + "&" + tls;
    }

    @Override
    protected String storeUri() {
        return uri("sslmode=verify-full&sslrootcert=" + certificates.caCert());
    }

    /**
     * R2.6: a JDBC session over the same TLS as the lock role, another application's role, the lock role with a wrong
     * password, or without one (the server refuses the last two at login).
     */
    @Override
    protected RawStoreSession rawStoreSession(RawStoreSession.Identity identity) throws SQLException {
        Properties login = new Properties();
        login.setProperty("sslmode", "verify-full");
        login.setProperty("sslrootcert", certificates.caCert().toString());
        switch (identity) {
            case APPLICATION -> login(login, ROLE, PASSWORD);
            case OTHER_USER -> login(login, OTHER_ROLE, OTHER_PASSWORD);
            case WRONG_PASSWORD -> login(login, ROLE, "Wr0ng-" + PASSWORD);
            case NO_CREDENTIALS -> login(login, ROLE, null);
        }
        return new PostgresRawSession(DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + postgres.port()
                + "/postgres", login), SCHEMA);
    }

    private static void login(Properties login, String role, String password) {
        login.setProperty("user", role);
        if (password != null) {
            login.setProperty("password", password);
        }
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        postgres.expire(SCHEMA, lockName);
    }

    @Override
    protected Set<Capability> expectedCapabilities() {
        // ACCESS_CONTROL: the server asks the role for its password, and the doc's script grants PUBLIC nothing.
        return EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION, Capability.BATCH_RENEW,
                Capability.ACCESS_CONTROL);
    }

    /**
     * Guards the other premise: the kit ran over TLS. The role's sessions are encrypted ({@code pg_stat_ssl}), and the
     * server refuses the role without TLS ({@code pg_hba.conf} has only a {@code hostssl} line for it).
     */
    @Test
    void theRoleGetsInOnlyOverTls() throws SQLException {
        try (LockClient client = newClient(); var lease = client.lock("tls-" + System.nanoTime())
                .acquire(Duration.ofSeconds(5))) {
            long[] sessions = sessions();
            assertTrue(sessions[0] >= 1, "the role's sessions while its client holds a lock: " + sessions[0]);
            assertEquals(sessions[0], sessions[1], "sessions with TLS of " + sessions[0]);
        }
        LockStoreException refused = assertThrows(LockStoreException.class,
                () -> LockClient.open(uri("sslmode=disable")).close());
        assertTrue(refused.getMessage().contains("refused the login"), refused.getMessage());
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

    /** Guards the premise of this class: the kit did not pass because the role could do more than the doc grants. */
    @Test
    void theRoleHasOnlyTheDocumentedRights() throws SQLException {
        try (Connection connection = postgres.connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT r.rolsuper, r.rolcreaterole, r.rolcreatedb,"
                     + " has_schema_privilege('" + ROLE + "', '" + SCHEMA + "', 'CREATE'),"
                     + " has_table_privilege('" + ROLE + "', '" + SCHEMA + ".locksmith_locks', 'DELETE'),"
                     + " has_table_privilege('" + ROLE + "', '" + SCHEMA + ".locksmith_locks', 'TRUNCATE'),"
                     + " has_sequence_privilege('" + ROLE + "', '" + SCHEMA + ".locksmith_fence', 'UPDATE'),"
                     + " (SELECT count(*) FROM pg_class c JOIN pg_roles o ON o.oid = c.relowner"
                     + "   WHERE o.rolname = '" + ROLE + "')"
                     + " FROM pg_roles r WHERE r.rolname = '" + ROLE + "'")) {
            row.next();
            for (int column = 1; column <= 7; column++) {
                assertEquals(false, row.getBoolean(column), "column " + column + " of the role's rights");
            }
            assertEquals(0, row.getLong(8), "objects the role owns");
        }
    }
}
