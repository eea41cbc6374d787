package io.locksmith.etcd;

import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockUri;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Parsing of {@code etcd://} URIs; no server needed. */
class EtcdSettingsTest {

    @Test
    void readsHostsPrefixTimeoutAndCredentials() {
        LockUri uri = LockUri.parse("etcd://alice:s3cret@h1:2379,h2,[::1]:2400?prefix=/locks&timeout=2s");
        EtcdSettings settings = EtcdSettings.from(uri);
        assertEquals(List.of("http://h1:2379", "http://h2:2379", "http://[::1]:2400"), settings.endpoints());
        assertEquals("/locks/", settings.prefix());
        assertEquals(Duration.ofSeconds(2), settings.timeout());
        assertEquals(Optional.of("alice"), settings.user());
        assertEquals(Optional.of("s3cret"), settings.password());
        assertFalse(settings.describe().contains("s3cret"), settings.describe());
        assertTrue(uri.unreadParameters().isEmpty());
    }

    @Test
    void defaultsArePrefixLocksmithAndFiveSeconds() {
        EtcdSettings settings = EtcdSettings.from(LockUri.parse("etcd://127.0.0.1"));
        assertEquals(EtcdSettings.DEFAULT_PREFIX, settings.prefix());
        assertEquals(EtcdSettings.DEFAULT_TIMEOUT, settings.timeout());
        assertEquals("etcd://127.0.0.1:2379?prefix=/locksmith/", settings.describe());
    }

    @Test
    void rejectsWhatItCannotUseNamingIt() {
        assertMessage("etcd://h:2379/locks", "prefix=");
        assertMessage("etcd://h:2379?prefix=", "prefix");
        assertMessage("etcd://h:2379?timeout=0s", "timeout");
        assertMessage("etcd://h:99999", "99999");
        assertMessage("etcd://alice@h:2379", "without a password");
        assertMessage("etcd://?prefix=/a/", "names no host");
    }

    @Test
    void etcdsMeansTlsWithTheGivenAuthorityAndClientCertificate(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        java.nio.file.Path ca = java.nio.file.Files.writeString(dir.resolve("ca.pem"), "x");
        java.nio.file.Path cert = java.nio.file.Files.writeString(dir.resolve("c.pem"), "x");
        java.nio.file.Path key = java.nio.file.Files.writeString(dir.resolve("c.key"), "x");
        LockUri uri = LockUri.parse("etcds://alice@h1,h2:2400?passwordEnv=ETCD_PW&trustStore=" + ca + "&clientCert="
                + cert + "&clientKey=" + key);
        EtcdSettings settings = EtcdSettings.from(uri, name -> name.equals("ETCD_PW") ? "from-env" : null);
        assertTrue(settings.tls());
        assertEquals(List.of("https://h1:2379", "https://h2:2400"), settings.endpoints());
        assertEquals(Optional.of(ca), settings.trustStore());
        assertEquals(Optional.of(cert), settings.clientCert());
        assertEquals(Optional.of(key), settings.clientKey());
        assertEquals(Optional.of("from-env"), settings.password());
        assertEquals("etcds://alice@h1:2379,h2:2400?prefix=/locksmith/", settings.describe());
        assertTrue(uri.unreadParameters().isEmpty());
        assertFalse(EtcdSettings.from(LockUri.parse("etcd://h")).tls());

        assertMessage("etcd://h?trustStore=" + ca, "only used over TLS; write etcds://");
        assertMessage("etcds://h?clientCert=" + cert, "only one of 'clientCert' and 'clientKey'");
        assertMessage("etcds://h?trustStore=" + dir.resolve("missing.pem"), "not a readable file");
        assertMessage("etcd://alice:pw@h?passwordEnv=ETCD_PW", "only one of them");
        assertMessage("etcd://alice@h?passwordEnv=LOCKSMITH_SURELY_UNSET_VARIABLE", "not set or empty");
    }

    @Test
    void namesAndOwnersCannotReachIntoAnotherLocksDirectory() {
        EtcdKeys keys = new EtcdKeys("/p/");
        assertEquals("/p/a%2Fb/", keys.directory("a/b").toString());
        assertEquals("/p/a/c%2Fd%25", keys.key("a", "c/d%").toString());
        assertFalse(keys.key("a/b", "x").toString().startsWith(keys.directory("a").toString()));
    }

    private static void assertMessage(String uri, String expected) {
        LockConfigurationException e = assertThrows(LockConfigurationException.class,
                () -> EtcdSettings.from(LockUri.parse(uri)));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void passwordFileGivesThePasswordAtOpenAndIsNamedInTheDescription(@org.junit.jupiter.api.io.TempDir
                                                                      java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = dir.resolve("pw");
        java.nio.file.Files.writeString(file, "etcd-Secret\n");
        EtcdSettings settings = EtcdSettings.from(LockUri.parse("etcd://locker@127.0.0.1?passwordFile=" + file));
        assertEquals(Optional.of("etcd-Secret"), settings.password());
        assertTrue(settings.passwordFile().isPresent());
        assertTrue(settings.describe().endsWith("&passwordFile=" + file), settings.describe());
        assertFalse(settings.describe().contains("Secret"), settings.describe());
        LockConfigurationException noUser = assertThrows(LockConfigurationException.class,
                () -> EtcdSettings.from(LockUri.parse("etcd://127.0.0.1?passwordFile=" + file)));
        assertTrue(noUser.getMessage().contains("no user"), noUser.getMessage());
        LockConfigurationException both = assertThrows(LockConfigurationException.class,
                () -> EtcdSettings.from(LockUri.parse("etcd://locker:uri-Secret@127.0.0.1?passwordFile=" + file)));
        assertFalse(both.getMessage().contains("uri-Secret"), both.getMessage());
    }
}
