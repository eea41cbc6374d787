package io.locksmith.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Issue 32's primitives scenarios on the in-JVM store, with tiny windows: each runs, counts, and sees its bound hold. */
class PrimitiveScenariosTest {

    private static final PrimitiveScenarios.Settings TINY = new PrimitiveScenarios.Settings(Duration.ofMillis(100),
            Duration.ofMillis(300), Duration.ofSeconds(5), 4, 25, Duration.ofMillis(1), 2, 6, 3, 2, 1);

    private final PrimitiveSubject mem = new LocksmithPrimitives("Locksmith over mem://", Store.MEM,
            "mem://bench-primitives-test-" + UUID.randomUUID() + "?lease=5s");
    private final PrimitiveScenarios scenarios = new PrimitiveScenarios(TINY);

    @Test
    void theReadHeavyRunCountsReadsAndWritesWithoutAWriterBesideAnybody() throws Exception {
        Map<String, Double> metrics = scenarios.readWriteReadHeavy(mem, "rw");

        assertTrue(metrics.get("reads") > 0, metrics.toString());
        assertTrue(metrics.get("writes") > 0, metrics.toString());
        assertTrue(metrics.get("reads") > metrics.get("writes"), metrics.toString());
        assertEquals(0.0, metrics.get("exclusion_violations"), metrics.toString());
        assertEquals(0.0, metrics.get("timeouts"), metrics.toString());
        assertTrue(metrics.get("read_wait_p50_us") <= metrics.get("read_wait_p99_us"), metrics.toString());
    }

    @Test
    void theSemaphoreRunNeverSeesMorePermitsHeldThanItHas() throws Exception {
        Map<String, Double> metrics = scenarios.semaphore(mem, "permits");

        assertTrue(metrics.get("acquisitions") > 0, metrics.toString());
        assertEquals(2.0, metrics.get("permits"), metrics.toString());
        // Six contenders on two permits: never three held at once.
        assertTrue(metrics.get("most_held") >= 1 && metrics.get("most_held") <= 2, metrics.toString());
        assertEquals(0.0, metrics.get("timeouts"), metrics.toString());
    }

    @Test
    void theFailoverRunElectsAnotherCandidateEachTimeTheLeadersClientCloses() throws Exception {
        Map<String, Double> metrics = scenarios.leaderFailover(mem, "election");

        assertEquals(2.0, metrics.get("rounds"), metrics.toString());
        assertEquals(0.0, metrics.get("unprompted_elections"), metrics.toString());
        assertFalse(metrics.containsKey("crash_p50_ms"), "mem:// has no proxy to cut: " + metrics);
        assertTrue(metrics.get("failover_p50_ms") > 0, metrics.toString());
        assertTrue(metrics.get("failover_p50_ms") <= metrics.get("failover_max_ms"), metrics.toString());
    }

    @Test
    void aSemaphoreThatAdmitsTooManyFailsTheScenarioLoudly() {
        // A "semaphore" of two permits that admits everybody: the bound check must fail the run, not report it.
        PrimitiveSubject unbounded = new PrimitiveSubject.Base("admits everybody", Store.MEM) {
            @Override
            public Primitives openPrimitives() {
                return new Primitives() {
                    @Override
                    public Held acquirePermits(String name, int size, int permits, Duration maxWait) {
                        return () -> {
                        };
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        };

        IllegalStateException failure = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> scenarios.semaphore(unbounded, "permits"));
        assertTrue(failure.getMessage().startsWith("SAFETY: admits everybody let "), failure.getMessage());
    }

    @Test
    void aRunOfTheBenchNamesTheScenariosAndCarriesTheirTables() throws Exception {
        BenchOptions options = BenchOptions.parse("--stores", "mem", "--scenarios",
                "rw-read-heavy,semaphore,leader-failover", "--runs", "1", "--warmup", "50ms", "--measure", "200ms",
                "--failover-rounds", "2");

        Report report = BenchMain.run(options);

        String markdown = report.markdown();
        assertTrue(markdown.contains("## Read-heavy read-write lock"), markdown);
        assertTrue(markdown.contains("## Semaphore"), markdown);
        assertTrue(markdown.contains("## Leader failover"), markdown);
        assertTrue(markdown.contains("| semaphore: never more than its 4 permits held at once | mem |"), markdown);
        assertFalse(markdown.contains("## Not measured"), markdown);
    }
}
