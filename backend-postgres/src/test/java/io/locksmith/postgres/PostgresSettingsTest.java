package io.locksmith.postgres;

import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockUri;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PostgresSettingsTest {

    @Test
    void readsEveryPartOfTheUri() {
        PostgresSettings settings = PostgresSettings.from(LockUri.parse(
                "postgres://app:s%40cret@db1:6432,db2/orders?schema=locks&pool=8&timeout=750ms&connectTimeout=3s"
                        + "&createSchema=false&cleanup=1m&allowAsyncStandby=true"));

        assertEquals(2, settings.hosts().size());
        assertEquals(6432, settings.hosts().get(0).port());
        assertEquals(5432, settings.hosts().get(1).port());
        assertEquals("orders", settings.database());
        assertEquals(Optional.of("app"), settings.user());
        assertEquals(Optional.of("s@cret"), settings.password());
        assertEquals("locks", settings.schema());
        assertEquals(8, settings.poolSize());
        assertEquals(Duration.ofMillis(750), settings.timeout());
        assertEquals(Duration.ofSeconds(3), settings.connectTimeout());
        assertFalse(settings.createSchema());
        assertEquals(Duration.ofMinutes(1), settings.cleanup());
        assertTrue(settings.allowAsyncStandby());
        assertEquals("jdbc:postgresql://db1:6432,db2:5432/orders?targetServerType=primary&hostRecheckSeconds=2&connectTimeout=3"
                + "&loginTimeout=3&ApplicationName=locksmith&tcpKeepAlive=true", settings.jdbcUrl());
    }

    @Test
    void defaultsAreDocumented() {
        PostgresSettings settings = PostgresSettings.from(LockUri.parse("postgresql://db/app"));

        assertEquals("public", settings.schema());
        assertEquals(4, settings.poolSize());
        assertEquals(Duration.ofSeconds(5), settings.timeout());
        assertEquals(Duration.ofSeconds(10), settings.connectTimeout());
        assertTrue(settings.createSchema());
        assertEquals(Optional.empty(), settings.user());
        assertFalse(settings.allowAsyncStandby(), "an asynchronous standby is refused unless allowed");
    }

    @Test
    void theDescriptionNeverShowsThePassword() {
        PostgresSettings settings = PostgresSettings.from(LockUri.parse("postgres://app:topsecret@db/app"));

        assertEquals("postgres://app@db:5432/app?schema=public", settings.describe());
        assertFalse(settings.toString().contains("topsecret"));
    }

    @Test
    void tlsSettingsGoToTheDriver() throws Exception {
        java.nio.file.Path ca = java.nio.file.Files.createTempFile("ca", ".crt");
        try {
            PostgresSettings settings = PostgresSettings.from(LockUri.parse("postgres://app@db/app?sslmode=verify-full"
                    + "&sslrootcert=" + ca));
            java.util.Properties properties = PostgresLockProviderFactory.connectionProperties(settings);
            assertEquals("verify-full", properties.getProperty("sslmode"));
            assertEquals(ca.toString(), properties.getProperty("sslrootcert"));
            assertEquals("postgres://app@db:5432/app?schema=public&sslmode=verify-full", settings.describe());
            assertFalse(PostgresLockProviderFactory.connectionProperties(PostgresSettings.from(
                    LockUri.parse("postgres://db/app"))).containsKey("sslmode"), "the driver's default stays");
        } finally {
            java.nio.file.Files.delete(ca);
        }
    }

    @Test
    void badTlsSettingsAreRefusedBeforeConnecting() {
        assertMessage("must be one of [disable, allow, prefer, require, verify-ca, verify-full], was 'verify'",
                "postgres://db/app?sslmode=verify");
        assertMessage("only used with sslmode=verify-ca or sslmode=verify-full",
                "postgres://db/app?sslmode=require&sslrootcert=/etc/hostname");
        assertMessage("'/no/such/ca.crt', which is not a readable file",
                "postgres://db/app?sslmode=verify-full&sslrootcert=/no/such/ca.crt");
    }

    @Test
    void aClientCertificateNeedsItsKeyTlsAndAPkcs8KeyWhoseAlgorithmTheDriverIsTold(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        io.locksmith.tck.server.TestCertificates certificates = io.locksmith.tck.server.TestCertificates.create("pg-settings");
        try {
            var client = certificates.clientCertificate("app");
            String files = "&sslcert=" + client.cert() + "&sslkey=" + client.key();
            PostgresSettings settings = PostgresSettings.from(LockUri.parse("postgres://app@db/app?sslmode=verify-full"
                    + files));
            java.util.Properties properties = PostgresLockProviderFactory.connectionProperties(settings);
            assertEquals(client.cert().toString(), properties.getProperty("sslcert"));
            assertEquals(client.key().toString(), properties.getProperty("sslkey"));
            assertEquals("EC", properties.getProperty("pemKeyAlgorithm"), "the harness's keys are EC; the driver assumes RSA");

            assertMessage("has sslcert without sslkey", "postgres://db/app?sslmode=require&sslcert=" + client.cert());
            assertMessage("has sslkey without sslcert", "postgres://db/app?sslmode=require&sslkey=" + client.key());
            assertMessage("need sslmode=require, verify-ca or verify-full", "postgres://db/app?sslmode=prefer" + files);
            assertMessage("need sslmode=require, verify-ca or verify-full", "postgres://db/app?pool=1" + files);
            assertMessage("'/no/such/client.key' as its client certificate or key, which is not a readable file",
                    "postgres://db/app?sslmode=require&sslcert=" + client.cert() + "&sslkey=/no/such/client.key");
            // A key in the traditional (SEC1) form: refused with the conversion to make, not sent to the driver.
            java.nio.file.Path sec1 = java.nio.file.Files.writeString(dir.resolve("sec1.key"),
                    "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n");
            assertMessage("openssl pkcs8 -topk8 -nocrypt", "postgres://db/app?sslmode=require&sslcert=" + client.cert()
                    + "&sslkey=" + sec1);
        } finally {
            io.locksmith.tck.server.ServerProcess.deleteRecursively(certificates.dir());
        }
    }

    @Test
    void thePasswordCanComeFromAnEnvironmentVariable() {
        java.util.Map<String, String> environment = java.util.Map.of("PG_LOCKS_PASSWORD", "from-env");
        PostgresSettings settings = PostgresSettings.from(LockUri.parse("postgres://app@db/app?passwordEnv=PG_LOCKS_PASSWORD"),
                environment::get);
        assertEquals(Optional.of("from-env"), settings.password());
        assertEquals("from-env", PostgresLockProviderFactory.connectionProperties(settings).getProperty("password"));
        assertFalse(settings.describe().contains("from-env"));

        LockConfigurationException unset = assertThrows(LockConfigurationException.class, () -> PostgresSettings.from(
                LockUri.parse("postgres://app@db/app?passwordEnv=NOT_SET_HERE"), environment::get));
        assertTrue(unset.getMessage().contains("'NOT_SET_HERE', which is not set or empty"), unset.getMessage());
        LockConfigurationException both = assertThrows(LockConfigurationException.class, () -> PostgresSettings.from(
                LockUri.parse("postgres://app:pw@db/app?passwordEnv=PG_LOCKS_PASSWORD"), environment::get));
        assertTrue(both.getMessage().contains("give only one of them"), both.getMessage());
        assertFalse(both.getMessage().contains("from-env"), both.getMessage());
    }

    /**
     * A server that accepts connections and never answers: the first attempt already used up connectTimeout, so the
     * start fails with that attempt's failure instead of handing the pool another connectTimeout to wait.
     */
    @Test
    void aServerThatNeverAnswersFailsTheStartWithTheFirstAttempt() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            io.locksmith.LockStoreException error = assertThrows(io.locksmith.LockStoreException.class,
                    () -> io.locksmith.LockClient.open("postgres://app:never-shown@127.0.0.1:" + silent.getLocalPort()
                            + "/app?connectTimeout=1s").close());
            assertTrue(error.getCause() instanceof java.sql.SQLException, "not the first attempt's failure: "
                    + error.getCause());
            assertTrue(error.getMessage().contains("postgres://app@127.0.0.1:" + silent.getLocalPort() + "/app"),
                    error.getMessage());
            assertFalse(error.getMessage().contains("never-shown"), error.getMessage());
        }
    }

    private static void assertMessage(String expected, String uri) {
        LockConfigurationException error = assertThrows(LockConfigurationException.class,
                () -> PostgresSettings.from(LockUri.parse(uri)));
        assertTrue(error.getMessage().contains(expected), "expected '" + expected + "' in: " + error.getMessage());
    }

    @Test
    void aMissingDatabaseIsAClearError() {
        LockConfigurationException error = assertThrows(LockConfigurationException.class,
                () -> PostgresSettings.from(LockUri.parse("postgres://db:5432")));
        assertTrue(error.getMessage().contains("must name one database"), error.getMessage());
    }

    @Test
    void aSchemaThatIsNoPlainIdentifierIsRefused() {
        LockConfigurationException error = assertThrows(LockConfigurationException.class,
                () -> PostgresSettings.from(LockUri.parse("postgres://db/app?schema=locks;drop")));
        assertTrue(error.getMessage().contains("parameter 'schema'"), error.getMessage());
    }

    @Test
    void aTimeoutBelowWhatThePoolHonoursIsRefused() {
        LockConfigurationException error = assertThrows(LockConfigurationException.class,
                () -> PostgresSettings.from(LockUri.parse("postgres://db/app?timeout=100ms")));
        assertTrue(error.getMessage().contains("timeout=250ms or more"), error.getMessage());
    }

    @Test
    void aPoolOfZeroIsRefused() {
        LockConfigurationException error = assertThrows(LockConfigurationException.class,
                () -> PostgresSettings.from(LockUri.parse("postgres://db/app?pool=0")));
        assertTrue(error.getMessage().contains("'pool'"), error.getMessage());
    }

    @Test
    void passwordFileIsReadAgainEachTimeNeedsAUserAndIsNamedInTheDescription(@org.junit.jupiter.api.io.TempDir
                                                                             java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = dir.resolve("pw");
        java.nio.file.Files.writeString(file, "first-Secret\n");
        PostgresSettings settings = PostgresSettings.from(LockUri.parse("postgres://app@db/app?passwordFile=" + file));
        assertEquals(Optional.of("first-Secret"), settings.currentPassword());
        java.nio.file.Files.writeString(file, "second-Secret");
        assertEquals(Optional.of("second-Secret"), settings.currentPassword());
        assertTrue(settings.describe().endsWith("&passwordFile=" + file), settings.describe());
        assertFalse(settings.describe().contains("Secret"), settings.describe());
        LockConfigurationException noUser = assertThrows(LockConfigurationException.class,
                () -> PostgresSettings.from(LockUri.parse("postgres://db/app?passwordFile=" + file)));
        assertTrue(noUser.getMessage().contains("no user"), noUser.getMessage());
        LockConfigurationException both = assertThrows(LockConfigurationException.class, () -> PostgresSettings.from(
                LockUri.parse("postgres://app@db/app?passwordEnv=HOME&passwordFile=" + file)));
        assertTrue(both.getMessage().contains("'passwordEnv' and 'passwordFile'"), both.getMessage());
    }
}
