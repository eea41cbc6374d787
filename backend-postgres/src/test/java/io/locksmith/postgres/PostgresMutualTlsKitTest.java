package io.locksmith.postgres;

import io.locksmith.tck.server.SecretChecks;
import io.locksmith.LockClient;
import io.locksmith.LockException;
import io.locksmith.LockStoreException;
import io.locksmith.tck.TckBase;
import io.locksmith.tck.kits.ExclusionKit;
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
 * The kit's basic rules (exclusion, ownership, fencing, waiting by LISTEN/NOTIFY) over mutual TLS: a server whose
 * pg_hba.conf asks for a password and a client certificate naming the role ({@code clientcert=verify-full}), the client
 * giving {@code sslcert}/{@code sslkey} (an EC key in PKCS#8 PEM, as {@code openssl} writes it) with
 * {@code sslmode=verify-full}. And the failures at start: no client certificate, and one from another authority;
 * each names the store and TLS, never the password.
 */
class PostgresMutualTlsKitTest extends TckBase implements ExclusionKit, OwnershipKit, FencingKit, WaitingKit {

    private static final String SCHEMA = "mtls_locks";
    private static final String ROLE = "mtls_app";
    private static final String PASSWORD = "Mtls-s3cret-4c1";

    private static TestCertificates certificates;
    private static TestCertificates otherAuthority;
    private static TestCertificates.ClientCertificate client;
    private static TestCertificates.ClientCertificate intruder;
    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        certificates = TestCertificates.create("postgres-mtls");
        otherAuthority = TestCertificates.create("postgres-other");
        client = certificates.clientCertificate(ROLE);
        intruder = otherAuthority.clientCertificate(ROLE);
        postgres = PostgresServer.startWithMutualTls(certificates);
        postgres.execute("CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + PASSWORD + "'");
        LockClient.open(postgres.uri("schema=" + SCHEMA)).close(); // the administrator creates the schema
        new PostgresSchema(SCHEMA).grants(ROLE).forEach(postgres::execute);
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

    private static String uri(String clientCertificate) {
        return "postgres://" + ROLE + ":" + PASSWORD + "@127.0.0.1:" + postgres.port() + "/postgres?pool=2&schema="
                + SCHEMA + "&sslmode=verify-full&sslrootcert=" + certificates.caCert() + clientCertificate;
    }

    private static String certificate(TestCertificates.ClientCertificate certificate) {
        return "&sslcert=" + certificate.cert() + "&sslkey=" + certificate.key();
    }

    @Override
    protected String storeUri() {
        return uri(certificate(client));
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        postgres.expire(SCHEMA, lockName);
    }

    /** The premise of the rules above: every session of the client showed the server its certificate. */
    @Test
    void everySessionOfTheClientSendsItsCertificate() throws SQLException {
        try (LockClient locks = newClient(); var lease = locks.lock("mtls-" + System.nanoTime())
                .acquire(Duration.ofSeconds(5))) {
            // pool=2 plus the listening connection; the pool fills in the background.
            await("the client's three sessions").atMost(Duration.ofSeconds(10)).until(() -> sessions()[0] >= 3);
            long[] sessions = sessions();
            assertEquals(sessions[0], sessions[1], "sessions with a client certificate of " + sessions[0]);
        }
    }

    /** The role's sessions, and how many of them showed a client certificate naming the role. */
    private static long[] sessions() throws SQLException {
        try (Connection connection = postgres.connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*), count(*) FILTER (WHERE s.ssl AND s.client_dn = '/CN="
                     + ROLE + "') FROM pg_stat_activity a JOIN pg_stat_ssl s ON s.pid = a.pid WHERE a.usename = '"
                     + ROLE + "'")) {
            row.next();
            return new long[] {row.getLong(1), row.getLong(2)};
        }
    }

    @Test
    void withoutAClientCertificateTheStartFailsNamingTheStoreAndTls() {
        LockStoreException error = assertThrows(LockStoreException.class, () -> LockClient.open(uri("")).close());
        assertNamesTheStoreAndTlsNotThePassword(error);
        assertTrue(error.getMessage().contains("client certificate"), error.getMessage());
    }

    @Test
    void aClientCertificateFromAnotherAuthorityFailsTheStartNamingTheStoreAndTls() {
        LockStoreException error = assertThrows(LockStoreException.class,
                () -> LockClient.open(uri(certificate(intruder))).close());
        assertNamesTheStoreAndTlsNotThePassword(error);
        assertTrue(error.getMessage().contains("sslcert=" + intruder.cert()), error.getMessage());
    }

    private static void assertNamesTheStoreAndTlsNotThePassword(LockException error) {
        assertTrue(error.getMessage().contains("postgres://" + ROLE + "@127.0.0.1:" + postgres.port() + "/postgres"),
                error.getMessage());
        assertTrue(error.getMessage().contains("TLS"), error.getMessage());
        SecretChecks.assertNoSecret(error, PASSWORD);
    }
}
