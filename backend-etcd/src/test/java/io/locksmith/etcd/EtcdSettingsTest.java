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
}
