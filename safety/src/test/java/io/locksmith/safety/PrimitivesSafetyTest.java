package io.locksmith.safety;

import io.locksmith.tck.LockShape;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A short safety run with every holding taken through a primitive instead of the mutex: the write lock of a read-write
 * lock, and all permits of a semaphore as one lease. The primitives are built by the shared client from the store's
 * locks, so they must come through every fault the mutex comes through: no stale write accepted, tokens (the gates')
 * in order, every frozen holder told before its late write, a killed holder's permits free again. A few hundred
 * operations and each of the deployment's faults once: what the long runs of RELIABILITY.md do, small enough for CI.
 */
class PrimitivesSafetyTest {

    private static final int OPERATIONS = 300;
    /** Only a cap: the run ends once the operations are done and every fault completed once. */
    private static final Duration CAP = Duration.ofSeconds(60);

    // One shape per store keeps CI time down (about 15 s on Redis, 33 s on ZooKeeper per run); the long runs of
    // RELIABILITY.md run both shapes on every deployment.
    @Test
    void onRedisEveryFaultLeavesASemaphoreSafe() {
        runWithEveryFaultOnce(RedisSingleDeployment::new, LockShape.SEMAPHORE);
    }

    @Test
    void onZooKeeperEveryFaultLeavesAWriteLockSafe() {
        runWithEveryFaultOnce(ZooKeeperDeployment::new, LockShape.WRITE_LOCK);
    }

    private static void runWithEveryFaultOnce(Supplier<Deployment> start, LockShape shape) {
        try (Deployment deployment = start.get()) {
            SafetyReport report = SafetyRun.on(deployment).shape(shape).operations(OPERATIONS).everyFault(1)
                    .duration(CAP).run();

            String markdown = report.toMarkdown("PrimitivesSafetyTest, " + deployment.name() + ", " + shape.argument());
            for (Fault fault : deployment.faults()) {
                assertTrue(report.faults().stream().anyMatch(f -> f.fault() == fault
                                && !f.outcome().startsWith("the fault could not be completed")),
                        fault + " never completed: " + markdown);
            }
            assertTrue(report.workload().operations() >= OPERATIONS, markdown);
            assertTrue(report.isSafe(), markdown);
        }
    }
}
