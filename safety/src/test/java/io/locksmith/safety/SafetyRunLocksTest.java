package io.locksmith.safety;

import io.locksmith.tck.WorkloadReport;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A safety run over several locks: each lock has its own register, they share one operation budget, a violation anywhere
 * counts; with {@code everyFault} the faults are met before the operations end the run.
 */
class SafetyRunLocksTest {

    @Test
    void severalLocksShareTheOperationsAndEachIsJudgedOnItsOwn() {
        try (Deployment mem = new InMemory()) {
            SafetyReport report = SafetyRun.on(mem).locks(3).operations(300).duration(Duration.ofSeconds(60)).run();

            assertEquals(3, report.locks().size(), report.toMarkdown("test"));
            assertEquals(3, report.locks().stream().map(WorkloadReport::lockName).distinct().count());
            // One budget: the locks' operations add up to it exactly (mem:// never fails an attempt).
            assertEquals(300, report.locks().stream().mapToLong(WorkloadReport::operations).sum());
            assertEquals(300, report.workload().operations());
            assertTrue(report.isSafe(), report.toMarkdown("test"));
        }
    }

    @Test
    void theTimelineHasTheFirstLocksHoldingsPerClientOnTheRunsClock() {
        try (Deployment mem = new InMemory()) {
            SafetyRun run = SafetyRun.on(mem).locks(2).operations(200).duration(Duration.ofSeconds(60));
            SafetyReport report = run.run();
            Timeline timeline = run.timeline();

            assertEquals(List.of("client 0", "client 1", "client 2", "victim JVMs"), timeline.rows());
            assertEquals(report.locks().get(0).lockName(), timeline.lockName());
            assertEquals(2, timeline.locks());
            assertEquals(report.locks().get(0).operations(), timeline.holdings().size(), report.toMarkdown("test"));
            for (int client = 0; client < 3; client++) {
                int row = client;
                assertTrue(timeline.holdings().stream().anyMatch(h -> h.row() == row), "client " + client + " held it");
            }
            for (Timeline.Holding h : timeline.holdings()) {
                assertTrue(0 <= h.fromMillis() && h.fromMillis() <= h.toMillis()
                        && h.toMillis() <= timeline.durationMillis(), h.toString());
            }
            assertEquals(List.of(), timeline.faults(), "mem:// suffers no fault");
            assertEquals(List.of(), timeline.staleWrites());
        }
    }

    /**
     * A hundred operations take Redis well under a second, less than one fault; with {@code everyFault(1)} the run goes on
     * until each of the deployment's faults has completed, and the operations end it only then.
     */
    @Test
    void aFastStoreStillMeetsEveryFaultItSupports() {
        try (Deployment redis = new RedisSingleDeployment()) {
            SafetyReport report = SafetyRun.on(redis).locks(2).operations(100).everyFault(1)
                    .duration(Duration.ofSeconds(120)).run();

            for (Fault fault : redis.faults()) {
                assertTrue(report.faults().stream().anyMatch(f -> f.fault() == fault
                                && !f.outcome().startsWith("the fault could not be completed")),
                        fault + " never completed: " + report.toMarkdown("test"));
            }
            assertTrue(report.workload().operations() >= 100, report.toMarkdown("test"));
            assertTrue(report.isSafe(), report.toMarkdown("test"));
        }
    }

    @Test
    void aViolationOnOneLockMakesTheSumUnsafe() {
        WorkloadReport clean = new WorkloadReport("a", 3, 2, 500, 0, 0, 0, 0, 1, 0, 0, 0, Duration.ofSeconds(9), null);
        WorkloadReport staleAccepted = new WorkloadReport("b", 3, 2, 400, 1, 2, 0, 1, 0, 0, 0, 0,
                Duration.ofSeconds(11), null);
        WorkloadReport overlapping = new WorkloadReport("c", 3, 2, 100, 0, 0, 1, 0, 0, 1, 1, 0, Duration.ofSeconds(3),
                null);

        WorkloadReport sum = SafetyReport.sumOf("a..c", List.of(clean, staleAccepted, overlapping));

        assertEquals(1000, sum.operations());
        assertEquals(1, sum.acquireTimeouts());
        assertEquals(2, sum.errors());
        assertEquals(1, sum.overlaps());
        assertEquals(1, sum.staleWritesAccepted());
        assertEquals(1, sum.staleWritesRejected());
        assertEquals(1, sum.tokenMonotonicityViolations());
        assertEquals(Duration.ofSeconds(11), sum.elapsed());
        assertFalse(sum.isSafe());
        assertTrue(SafetyReport.sumOf("a", List.of(clean)).isSafe());
    }

    /** The in-JVM store: no servers, no faults; its clients share it by name. */
    private static final class InMemory implements Deployment {
        private final String uri = "mem://safety-run-" + UUID.randomUUID();

        @Override
        public String name() {
            return "mem";
        }

        @Override
        public String description() {
            return "in-JVM store";
        }

        @Override
        public String uri() {
            return uri;
        }

        @Override
        public Set<Fault> faults() {
            return EnumSet.noneOf(Fault.class);
        }

        @Override
        public void close() {
        }
    }
}
