package io.locksmith.tck.kits;

import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Registry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract of {@link Registry}, the optional key-value records a provider offers for client coordination
 * (the migration phase guard). Outside the numbered rules; run by {@link io.locksmith.tck.StoreTck} and
 * {@link io.locksmith.tck.RegistryTck}, on providers of {@link StoreHooks#newProvider()}. A provider without a
 * registry does not need it: the migration provider refuses such stores with a clear error.
 */
public interface RegistryKit extends RuleKit {

    @Test
    default void putThenListByPrefix() {
        Registry registry = registryOf(kitContext().provider());
        String prefix = registryPrefix();
        registry.put(prefix + "a", "1", Duration.ofSeconds(30));
        registry.put(prefix + "b", "2", null);
        registry.put("tck/other-" + UUID.randomUUID(), "3", null);
        assertEquals(Map.of(prefix + "a", "1", prefix + "b", "2"), registry.list(prefix));
    }

    @Test
    default void putReplacesTheValue() {
        Registry registry = registryOf(kitContext().provider());
        String prefix = registryPrefix();
        registry.put(prefix + "a", "1", Duration.ofSeconds(30));
        registry.put(prefix + "a", "2", Duration.ofSeconds(30));
        assertEquals(Map.of(prefix + "a", "2"), registry.list(prefix));
    }

    @Test
    default void removeDropsTheRecordAndIgnoresMissingOnes() {
        Registry registry = registryOf(kitContext().provider());
        String prefix = registryPrefix();
        registry.put(prefix + "a", "1", null);
        registry.remove(prefix + "a");
        registry.remove(prefix + "never-there");
        assertTrue(registry.list(prefix).isEmpty());
    }

    @Test
    default void aRecordWithTtlGoesAwayWhenNotPutAgain() {
        LockProvider provider = kitContext().provider();
        Registry registry = registryOf(provider);
        String prefix = registryPrefix();
        Duration shortTtl = shortTtl(provider);
        registry.put(prefix + "short", "x", shortTtl);
        registry.put(prefix + "stays", "y", null);
        await().atMost(shortTtl.multipliedBy(10).plusSeconds(5))
                .until(() -> !registry.list(prefix).containsKey(prefix + "short"));
        assertEquals(Map.of(prefix + "stays", "y"), registry.list(prefix));
    }

    @Test
    default void anotherProviderSeesTheRecords() {
        KitContext kit = kitContext();
        Registry registry = registryOf(kit.provider());
        String prefix = registryPrefix();
        registry.put(prefix + "shared", "v", Duration.ofSeconds(30));
        assertEquals(Map.of(prefix + "shared", "v"), registryOf(kit.provider()).list(prefix));
    }

    /**
     * The TTL of the record that must go away: 300 ms, or the provider's {@link LockProvider#minimumTtl()} if that
     * is longer (etcd counts whole seconds).
     */
    private static Duration shortTtl(LockProvider provider) {
        Duration kitDefault = Duration.ofMillis(300);
        return provider.minimumTtl().compareTo(kitDefault) > 0 ? provider.minimumTtl() : kitDefault;
    }

    private static Registry registryOf(LockProvider provider) {
        return provider.registry().orElseThrow(() -> new AssertionError(provider.describe() + " offers no registry"));
    }

    /** A prefix no other test uses. */
    private static String registryPrefix() {
        return "tck/" + UUID.randomUUID() + "/";
    }
}
