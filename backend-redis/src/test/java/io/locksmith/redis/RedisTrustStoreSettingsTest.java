package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockUri;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code trustStore=}: taken on every Redis URI with TLS, refused without TLS and when the file cannot be used. */
class RedisTrustStoreSettingsTest {

    static TestCertificates certificates;

    @BeforeAll
    static void makeCertificates() {
        certificates = TestCertificates.create("redis-settings");
    }

    @AfterAll
    static void deleteCertificates() {
        if (certificates != null) {
            ServerProcess.deleteRecursively(certificates.dir());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rediss://127.0.0.1:6380", "rediss-sentinel://127.0.0.1:26380/mymaster",
            "rediss-cluster://127.0.0.1:7000,127.0.0.1:7001", "redlock://h1,h2,h3?ssl=true"})
    void everyUriWithTlsTakesAPemTrustStore(String uri) {
        RedisSettings settings = parse(uri + (uri.contains("?") ? "&" : "?") + "trustStore=" + certificates.caCert());
        assertEquals(certificates.caCert(), settings.tls().trustStore());
        assertNotNull(settings.tls().trust());
    }

    @Test
    void withoutATrustStoreTlsTrustsTheJvmsDefault() {
        assertNull(parse("rediss://127.0.0.1:6380").tls().trust());
        assertNull(parse("redis://127.0.0.1:6380").tls(), "no TLS, no trust");
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis://127.0.0.1:6380", "redis-sentinel://127.0.0.1:26380/mymaster",
            "redis-cluster://127.0.0.1:7000", "redlock://h1,h2,h3"})
    void aTrustStoreWithoutTlsIsRefusedAtOpen(String uri) {
        LockConfigurationException error = assertThrows(LockConfigurationException.class,
                () -> LockClient.open(uri + "?trustStore=" + certificates.caCert()).close());
        assertTrue(error.getMessage().contains("'trustStore'") && error.getMessage().contains("needs TLS"),
                error.getMessage());
    }

    @Test
    void aMissingFileADirectoryAndAFileWithoutCertificatesAreRefusedAtOpenNamingTheFile() throws IOException {
        Path missing = certificates.dir().resolve("missing.pem");
        Path empty = Files.writeString(certificates.dir().resolve("empty.pem"), "not a certificate\n");
        for (Path file : new Path[] {missing, certificates.dir(), empty}) {
            LockConfigurationException error = assertThrows(LockConfigurationException.class,
                    () -> LockClient.open("rediss://:s3cret-pw@127.0.0.1:6380?trustStore=" + file).close());
            assertTrue(error.getMessage().contains("'trustStore'") && error.getMessage().contains(file.toString()),
                    error.getMessage());
            RedisTlsSupport.assertNoSecret(error, "s3cret-pw");
        }
    }

    @Test
    void aPkcs12TrustStoreIsReadByItsExtensionWithItsPassword() {
        Path store = RedisTlsSupport.pkcs12TrustStore(certificates, "st0re-pw");
        assertNotNull(parse("rediss://127.0.0.1:6380?trustStore=" + store + "&trustStorePassword=st0re-pw").tls().trust());
        LockConfigurationException error = assertThrows(LockConfigurationException.class,
                () -> parse("rediss://127.0.0.1:6380?trustStore=" + store + "&trustStorePassword=wrong-pw"));
        assertTrue(error.getMessage().contains("as PKCS12"), error.getMessage());
        RedisTlsSupport.assertNoSecret(error, "wrong-pw");
    }

    @Test
    void aKeyStoreIsOnePemFileWithTheClientCertificateAndItsKey() throws IOException {
        Path keyStore = RedisServer.clientKeyStore(certificates, "settings-client");
        RedisSettings settings = parse("rediss://127.0.0.1:6380?keyStore=" + keyStore);
        assertEquals(keyStore, settings.tls().keyStore());
        assertNotNull(settings.tls().keys());
        assertNull(settings.tls().trust(), "the JVM's default authorities");
        assertNull(parse("rediss://127.0.0.1:6380").tls().keys(), "no keyStore, no client certificate");

        LockConfigurationException plain = assertThrows(LockConfigurationException.class,
                () -> LockClient.open("redis://127.0.0.1:6380?keyStore=" + keyStore).close());
        assertTrue(plain.getMessage().contains("'keyStore'") && plain.getMessage().contains("needs TLS"),
                plain.getMessage());

        // The certificate alone (no key), and a missing file: refused at open, naming the file, never the password.
        Path certificateOnly = certificates.dir().resolve("client-settings-client.crt");
        for (Path file : new Path[] {certificateOnly, certificates.dir().resolve("missing.pem")}) {
            LockConfigurationException error = assertThrows(LockConfigurationException.class,
                    () -> LockClient.open("rediss://:s3cret-pw@127.0.0.1:6380?keyStore=" + file).close());
            assertTrue(error.getMessage().contains("'keyStore'") && error.getMessage().contains(file.toString()),
                    error.getMessage());
            RedisTlsSupport.assertNoSecret(error, "s3cret-pw");
        }
    }

    private static RedisSettings parse(String uri) {
        return RedisSettings.parse(LockUri.parse(uri));
    }
}
