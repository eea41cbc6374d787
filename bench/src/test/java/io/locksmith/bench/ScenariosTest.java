package io.locksmith.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The harness itself, on the in-JVM store: each scenario runs, counts, and sees mutual exclusion. */
class ScenariosTest {

    private static final BenchConfig TINY = new BenchConfig(Duration.ofMillis(100), Duration.ofMillis(300), 4,
            Duration.ofMillis(1), Duration.ofMillis(2), 8, 100, 200, Duration.ofMillis(300), Duration.ofSeconds(3), Duration.ofSeconds(5), false);

    private final String store = "bench-test-" + UUID.randomUUID();
    private final Subject mem = new LocksmithSubject("Locksmith over mem://", Store.MEM, "mem://" + store);
    private final Scenarios scenarios = new Scenarios(TINY);

    @Test
    void uncontendedCountsOperationsAndLatencies() throws Exception {
        Map<String, Double> metrics = scenarios.uncontended(mem, "u");

        assertTrue(metrics.get("ops") > 0, metrics.toString());
        assertTrue(metrics.get("ops_per_s") > 0, metrics.toString());
        assertTrue(metrics.get("p50_us") <= metrics.get("p99_us"), metrics.toString());
    }

    @Test
    void contendedHandsTheLockOverBetweenWaitersWithoutOverlap() throws Exception {
        Map<String, Double> metrics = scenarios.contended(mem, "c");

        assertEquals(0.0, metrics.get("exclusion_violations"), metrics.toString());
        assertEquals(0.0, metrics.get("timeouts"), metrics.toString());
        assertTrue(metrics.get("acquisitions") > 10, metrics.toString());
        assertTrue(metrics.get("handoff_p50_us") > 0, metrics.toString());
        // Every holder goes to the back of the queue, so nearly every acquisition is a handoff to a waiter.
        assertTrue(metrics.get("handoffs_to_waiters_pct") > 50, metrics.toString());
    }

    @Test
    void manyNamesRunsEveryThreadOverTheNames() throws Exception {
        Map<String, Double> metrics = scenarios.manyNames(mem, "m.");

        assertTrue(metrics.get("ops") > 0, metrics.toString());
        assertEquals(0.0, metrics.get("timeouts"), metrics.toString());
    }

    @Test
    void renewalHoldsEveryLockAndReadsTheCounterAroundTheWindow() throws Exception {
        long[] readings = {100, 160};
        int[] calls = {0};
        Map<String, Double> metrics = scenarios.renewal(mem, "r.", () -> readings[calls[0]++]);

        assertEquals(2, calls[0]);
        assertEquals(200.0, metrics.get("locks"));
        assertEquals(0.0, metrics.get("locks_lost"));
        // 160 - 100 over a window of about 0.3 s
        double window = metrics.get("window_s");
        assertEquals(60 / window, metrics.get("store_requests_per_s"), 1e-6);
        assertTrue(metrics.get("client_cpu_pct") >= 0, metrics.toString());
    }
}
