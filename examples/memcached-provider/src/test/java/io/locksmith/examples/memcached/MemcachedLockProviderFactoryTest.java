package io.locksmith.examples.memcached;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the factory refuses, and the provider's store-specific arithmetic. */
class MemcachedLockProviderFactoryTest {

    @Test
    void aServerThatEvictsItemsIsRefusedNamingTheFix() {
        int port = FreePorts.next();
        List<String> command = new ArrayList<>(List.of("memcached", "--listen=127.0.0.1", "--port=" + port, "--udp-port=0"));
        if ("root".equals(System.getProperty("user.name"))) {
            command.add("--user=root");
        }
        try (ServerProcess evicting = ServerProcess.start("memcached-evicting-" + port, command,
                StoreServers.tempDir("memcached-evicting-" + port), port, StoreServers.MEMCACHED_INSTALL_HINT)
                .deleteWorkDirOnClose()) {
            LockConfigurationException refused = assertThrows(LockConfigurationException.class,
                    () -> LockClient.open("memcached://127.0.0.1:" + evicting.port()).close());
            assertTrue(refused.getMessage().contains("-M"), refused.getMessage());
        }
    }

    @Test
    void oneServerWithoutAPath() {
        assertThrows(LockConfigurationException.class, () -> LockClient.open("memcached://127.0.0.1:1,127.0.0.1:2"));
        assertThrows(LockConfigurationException.class, () -> LockClient.open("memcached://127.0.0.1:1/locks"));
        assertThrows(LockConfigurationException.class, () -> LockClient.open("memcached://127.0.0.1:1?timeout=0s"));
    }

    @Test
    void theItemOutlivesTheLeaseByTheMarginAndWholeSeconds() {
        assertEquals(3, MemcachedLockProvider.expirySeconds(Duration.ofMillis(400)));
        assertEquals(3, MemcachedLockProvider.expirySeconds(Duration.ofSeconds(1)));
        assertEquals(4, MemcachedLockProvider.expirySeconds(Duration.ofMillis(1001)));
        assertEquals(86_402, MemcachedLockProvider.expirySeconds(Duration.ofDays(1)));
        assertThrows(IllegalArgumentException.class, () -> MemcachedLockProvider.expirySeconds(Duration.ofDays(31)));
    }

    @Test
    void keysAreShortPrintableAndDistinctForConfusableNames() {
        String longName = "n".repeat(512);
        String key = MemcachedLockProvider.keyOf(longName);
        assertTrue(key.length() <= 250 && key.chars().allMatch(c -> c > ' ' && c < 127), key);
        assertTrue(!MemcachedLockProvider.keyOf("Aa").equals(MemcachedLockProvider.keyOf("BB")), "hashCode twins share a key");
        assertTrue(!MemcachedLockProvider.keyOf("a b").equals(MemcachedLockProvider.keyOf("a\u00a0b")));
    }
}
