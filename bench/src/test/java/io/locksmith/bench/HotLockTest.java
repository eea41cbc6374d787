package io.locksmith.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hot-lock scenario end to end on the in-JVM store, with tiny counts and windows: it runs, counts and ends. */
class HotLockTest {

    private static final HotLock.Settings TINY = new HotLock.Settings(List.of(2, 6), 16, Duration.ofMillis(50),
            Duration.ofMillis(200), Duration.ofSeconds(5), Duration.ofMillis(1), 100_000);

    private final Subject mem = new LocksmithSubject("Locksmith over mem://", Store.MEM, "mem://bench-hot-test-"
            + UUID.randomUUID());

    @Test
    void everyWaiterCountRunsOnOneNameWithoutOverlapAndEnds() {
        Map<String, Double> metrics = new HotLock(TINY).run(mem, "hot");

        for (String prefix : List.of("w2_", "w6_")) {
            assertTrue(metrics.get(prefix + "calls") > 0, metrics.toString());
            assertEquals(0.0, metrics.get(prefix + "exclusion_violations"), metrics.toString());
            assertEquals(0.0, metrics.get(prefix + "errors"), metrics.toString());
            assertEquals(0.0, metrics.get(prefix + "stuck"), metrics.toString());
            assertTrue(metrics.containsKey(prefix + "acquisitions_per_s"), metrics.toString());
            assertTrue(metrics.containsKey(prefix + "past_bound"), metrics.toString());
            assertTrue(metrics.containsKey(prefix + "longest_wait_ms"), metrics.toString());
        }
        assertEquals(1.0, metrics.get("w2_x_first"), 1e-9);
        // The virtual threads run where the JVM has them (the Java 25 pass of scripts/test-all.sh), and only there.
        boolean virtual = VirtualThreads.factory().isPresent();
        assertEquals(virtual, metrics.containsKey("vt16_calls"), metrics.toString());
        if (virtual) {
            assertEquals(0.0, metrics.get("vt16_exclusion_violations"), metrics.toString());
            assertEquals(0.0, metrics.get("vt16_stuck"), metrics.toString());
        }
    }

    @Test
    void aRunOfTheBenchCarriesTheHotLockTable() throws Exception {
        BenchOptions options = BenchOptions.parse("--stores", "mem", "--scenarios", "hot-lock", "--runs", "1",
                "--warmup", "50ms", "--hot-measure", "200ms", "--hot-waiters", "2,4", "--hot-virtual", "8");

        Report report = BenchMain.run(options);

        String markdown = report.markdown();
        assertTrue(markdown.contains("## Hot lock"), markdown);
        assertTrue(markdown.contains("| **Locksmith over mem://** | 2 |"), markdown);
        assertTrue(markdown.contains("| **Locksmith over mem://** | 4 |"), markdown);
        assertTrue(markdown.contains("hot lock: 4 waiters ≥ 0.8 × 2 waiters' acquisitions/s"), markdown);
        assertFalse(markdown.contains("## Not measured"), markdown);
    }

    @Test
    void anErrorsKindIsItsRootCauseWithDigitsFolded() {
        Exception error = new ExecutionException(new IllegalStateException("etcdserver: too many requests (42 in 3 s)"));

        assertEquals("ExecutionException / IllegalStateException: etcdserver: too many requests (# in # s)",
                HotLock.kind(error));
        assertEquals("TimeoutException", HotLock.kind(new java.util.concurrent.TimeoutException()));
    }
}
