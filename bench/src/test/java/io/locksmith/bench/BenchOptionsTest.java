package io.locksmith.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.EnumSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchOptionsTest {

    @Test
    void defaultsAreTheFullRunOnEveryNetworkStore() {
        BenchOptions options = BenchOptions.parse();

        assertFalse(options.quick());
        assertEquals(EnumSet.of(Store.REDIS, Store.ZOOKEEPER, Store.ETCD, Store.POSTGRES), options.stores());
        assertEquals(4, options.scenarios().size());
        assertEquals(Duration.ofSeconds(60), options.config().renewalHold());
        assertEquals(10_000, options.config().renewalLocks());
        assertEquals(8, options.config().contenders());
        assertEquals(32, options.config().manyThreads());
        assertEquals(10_000, options.config().names());
    }

    @Test
    void quickShortensTheWindowsAndOptionsOverrideThem() {
        BenchOptions options = BenchOptions.parse("--quick", "--renewal-hold", "20s", "--stores", "redis,mem",
                "--scenarios", "many-names,renewal", "--measure", "500ms");

        assertTrue(options.quick());
        assertEquals(Duration.ofSeconds(20), options.config().renewalHold());
        assertEquals(Duration.ofSeconds(6), options.config().renewalLease());
        assertEquals(Duration.ofMillis(500), options.config().measure());
        assertEquals(EnumSet.of(Store.REDIS, Store.MEM), options.stores());
        assertEquals(EnumSet.of(Scenario.MANY_NAMES, Scenario.RENEWAL), options.scenarios());
    }

    @Test
    void theContendedHoldAndThinkTimeMayBeZero() {
        BenchOptions saturated = BenchOptions.parse("--contended-hold", "0ms", "--contended-think", "0");
        assertEquals(Duration.ZERO, saturated.config().hold());
        assertEquals(Duration.ZERO, saturated.config().thinkMax());
        BenchOptions defaults = BenchOptions.parse();
        assertEquals(Duration.ofMillis(1), defaults.config().hold());
        assertEquals(Duration.ofMillis(20), defaults.config().thinkMax());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--contended-think", "-5ms"))
                .getMessage().contains("--contended-think"));
    }

    @Test
    void theHotLockIsRunOnlyWhenNamedAndTakesItsOwnCountsAndWindow() {
        BenchOptions defaults = BenchOptions.parse();
        assertFalse(defaults.scenarios().contains(Scenario.HOT_LOCK));
        assertFalse(defaults.scenarios().contains(Scenario.ASYNC_OVERHEAD));
        assertEquals(java.util.List.of(8, 100, 1_000), defaults.hotLock().waiters());
        assertEquals(10_000, defaults.hotLock().virtualThreads());
        assertEquals(Duration.ofSeconds(10), defaults.hotLock().measure());
        assertEquals(Duration.ofSeconds(10), defaults.hotLock().maxWait());

        BenchOptions hot = BenchOptions.parse("--quick", "--scenarios", "hot-lock,async-overhead", "--hot-waiters",
                "8,1000", "--hot-virtual", "0", "--hot-wait", "5s", "--hot-hold", "0ms");
        assertEquals(EnumSet.of(Scenario.HOT_LOCK, Scenario.ASYNC_OVERHEAD), hot.scenarios());
        assertEquals(java.util.List.of(8, 1_000), hot.hotLock().waiters());
        assertEquals(0, hot.hotLock().virtualThreads());
        assertEquals(Duration.ofSeconds(4), hot.hotLock().measure());
        assertEquals(Duration.ofSeconds(5), hot.hotLock().maxWait());
        assertEquals(Duration.ZERO, hot.hotLock().hold());
        assertEquals(java.util.List.of("w8_", "w1000_"), hot.hotLock().prefixes());
    }

    @Test
    void theNetworkDelayIsLoopbackUnlessGivenInMicrosecondsOrMilliseconds() {
        assertEquals(Duration.ZERO, BenchOptions.parse().networkDelay());
        assertEquals(Duration.ofNanos(100_000), BenchOptions.parse("--network-delay", "100us").networkDelay());
        assertEquals(Duration.ofNanos(100_000), BenchOptions.parse("--network-delay", "100µs").networkDelay());
        assertEquals(Duration.ofMillis(1), BenchOptions.parse("--network-delay", "1ms").networkDelay());
        assertEquals(Duration.ZERO, BenchOptions.parse("--network-delay", "0us").networkDelay());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--network-delay", "0.1ms"))
                .getMessage().contains("--network-delay takes a duration such as 100us"));
    }

    @Test
    void badOptionsAreNamed() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--fast"))
                .getMessage().contains("unknown option '--fast'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--stores", "consul"))
                .getMessage().contains("unknown store 'consul'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--renewal-hold", "soon"))
                .getMessage().contains("--renewal-hold takes a duration"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--renewal-lease", "1500ms"))
                .getMessage().contains("whole seconds"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--measure"))
                .getMessage().contains("--measure needs a value"));
    }
}
