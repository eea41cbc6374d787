package io.locksmith.tck;

import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Registry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract of {@link Registry}, the optional key-value records a provider offers for client coordination
 * (the migration phase guard). Extend it with a provider on a live store. A provider without a registry
 * does not need it: the migration provider refuses such stores with a clear error.
 */
@Timeout(60)
public abstract class RegistryTck {

    private LockProvider provider;
    private Registry registry;
    private String prefix;

    /** A new provider on the store under test; the kit closes it. */
    protected abstract LockProvider newProvider();

    /**
     * The TTL of the record that must go away: 300 ms, or the provider's {@link LockProvider#minimumTtl()} if that
     * is longer (etcd counts whole seconds).
     */
    protected Duration shortTtl() {
        Duration kitDefault = Duration.ofMillis(300);
        return provider.minimumTtl().compareTo(kitDefault) > 0 ? provider.minimumTtl() : kitDefault;
    }

    @BeforeEach
    void open() {
        provider = newProvider();
        registry = provider.registry().orElseThrow(() -> new AssertionError(provider.describe() + " offers no registry"));
        prefix = "tck/" + UUID.randomUUID() + "/";
    }

    @AfterEach
    void close() {
        provider.close();
    }

    @Test
    void putThenListByPrefix() {
        registry.put(prefix + "a", "1", Duration.ofSeconds(30));
        registry.put(prefix + "b", "2", null);
        registry.put("tck/other-" + UUID.randomUUID(), "3", null);
        assertEquals(Map.of(prefix + "a", "1", prefix + "b", "2"), registry.list(prefix));
    }

    @Test
    void putReplacesTheValue() {
        registry.put(prefix + "a", "1", Duration.ofSeconds(30));
        registry.put(prefix + "a", "2", Duration.ofSeconds(30));
        assertEquals(Map.of(prefix + "a", "2"), registry.list(prefix));
    }

    @Test
    void removeDropsTheRecordAndIgnoresMissingOnes() {
        registry.put(prefix + "a", "1", null);
        registry.remove(prefix + "a");
        registry.remove(prefix + "never-there");
        assertTrue(registry.list(prefix).isEmpty());
    }

    @Test
    void aRecordWithTtlGoesAwayWhenNotPutAgain() {
        registry.put(prefix + "short", "x", shortTtl());
        registry.put(prefix + "stays", "y", null);
        await().atMost(shortTtl().multipliedBy(10).plusSeconds(5))
                .until(() -> !registry.list(prefix).containsKey(prefix + "short"));
        assertEquals(Map.of(prefix + "stays", "y"), registry.list(prefix));
    }

    @Test
    void anotherProviderSeesTheRecords() {
        registry.put(prefix + "shared", "v", Duration.ofSeconds(30));
        LockProvider other = newProvider();
        try {
            assertEquals(Map.of(prefix + "shared", "v"), other.registry().orElseThrow().list(prefix));
        } finally {
            other.close();
        }
    }
}
