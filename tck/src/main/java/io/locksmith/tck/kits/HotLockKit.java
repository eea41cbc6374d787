package io.locksmith.tck.kits;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hot lock (docs/SPEC.md R7.11): one name, many local waiters in one application. However many threads of one
 * client wait for one name, its throughput stays near that of a few waiters and every wait keeps its bound.
 */
public interface HotLockKit extends RuleKit {

    /**
     * What the rule asks of the many-waiter run's throughput, as a share of the few-waiter run's: a tenth, which tells a
     * client whose waiters coalesce (0.8 to 1.05 measured on a quiet machine, and in the bench's hot-lock scenario)
     * from one whose store traffic grows with its threads (0.000 to 0.005 over a one-thread toy store), on a machine
     * as loaded as several builds make it (at load 50 a correct client measured 0.25 to 0.77, and one 8-thread window
     * saw no acquisition at all). The 0.8 goal is the bench's to show, side by side.
     */
    double MIN_RATIO = 0.1;
    int FEW = 8;
    int MANY = 1_000;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    default void required_r7_11_aHotLockKeepsItsThroughputAndEveryBoundWithAThousandLocalWaiters() throws Exception {
        // Long enough for a thousand waiters to go round the queue at least once on a store of a few hundred
        // handoffs per second, short enough for every kit class.
        KitContext kit = kitContext();
        Duration window = kit.timing().slack();
        HotLockRuns.Run few = HotLockRuns.run(kit.client(), FEW, window);
        HotLockRuns.Run many = HotLockRuns.run(kit.client(), MANY, window);
        assertWithinBounds(few, many);
        double ratio = ratio(few, many);
        String rounds = few + "; " + many;
        if (ratio < MIN_RATIO) {
            // Throughput is measured, not asserted on one sample: a busy machine (other JVMs, a GC) can take a thread
            // of a thousand off the CPU for longer than a handoff. A second round of both sizes, and the best rate of
            // each, tells a client that collapses from one that was unlucky once.
            HotLockRuns.Run fewAgain = HotLockRuns.run(kit.client(), FEW, window);
            HotLockRuns.Run manyAgain = HotLockRuns.run(kit.client(), MANY, window);
            assertWithinBounds(fewAgain, manyAgain);
            double bestFew = Math.max(few.perSecond(), fewAgain.perSecond());
            double bestMany = Math.max(many.perSecond(), manyAgain.perSecond());
            ratio = bestFew == 0 ? (bestMany > 0 ? Double.POSITIVE_INFINITY : 0) : bestMany / bestFew;
            rounds += "; again: " + fewAgain + "; " + manyAgain;
        }
        // For the record: the ratio a correct client reaches here, at whatever load the machine has.
        System.out.printf("R7.11 %s: %d local waiters at %.2f of the rate of %d (%s)%n", getClass().getSimpleName(),
                MANY, ratio, FEW, rounds);
        assertTrue(ratio >= MIN_RATIO, String.format("%d local waiters reached %.2f of the throughput of %d (at least"
                + " %.2f required): %s", MANY, ratio, FEW, MIN_RATIO, rounds));
    }

    /** The many-waiter rate as a share of the few-waiter rate; a few-waiter window that saw nothing decides nothing. */
    private static double ratio(HotLockRuns.Run few, HotLockRuns.Run many) {
        if (few.perSecond() == 0) {
            return many.perSecond() > 0 ? Double.POSITIVE_INFINITY : 0;
        }
        return many.perSecond() / few.perSecond();
    }

    private static void assertWithinBounds(HotLockRuns.Run few, HotLockRuns.Run many) {
        String both = few + "; " + many;
        for (HotLockRuns.Run run : List.of(few, many)) {
            assertEquals(0, run.errors(), "a hot lock made acquires fail: " + both);
            // A waiter may time out at its bound only when the lock could not serve every waiter within it: a turn of the
            // queue (threads / rate) longer than half the bound, as on a store slowed by a loaded machine (etcd's disk
            // writes at load 15: 70 acquisitions/s, 14 s for 1,000 waiters). A bound kept is not a failure; a lock that
            // serves a turn in a fraction of the bound and still lets waiters time out starves some of them.
            double turnSeconds = run.perSecond() > 0 ? run.threads() / run.perSecond() : Double.POSITIVE_INFINITY;
            if (turnSeconds < HotLockRuns.BOUND.toSeconds() / 2.0) {
                assertEquals(0, run.timeouts(), "a hot lock made acquires time out within " + HotLockRuns.BOUND
                        + " although it served " + run.threads() + " waiters in " + String.format("%.1f", turnSeconds)
                        + " s: " + both);
            }
            assertEquals(0, run.pastBound(), "a wait ran past its bound: " + both);
        }
        assertTrue(few.acquisitions() + many.acquisitions() > 0, "nothing acquired: " + both);
    }
}
