package io.locksmith.bench;

import java.time.Duration;

/**
 * How long and how wide each scenario runs.
 *
 * @param warmup          time run before measuring, per subject and scenario
 * @param measure         measured time per subject and scenario (not renewal)
 * @param contenders      threads (one client each) on one lock in the contended scenario
 * @param hold            how long a contended holder keeps the lock (the work it guards)
 * @param thinkMax        a contended thread's other work between two needs of the lock: random up to this
 * @param manyThreads     threads on one client in the many-names scenario
 * @param names           lock names in the many-names scenario
 * @param renewalLocks    locks one client holds in the renewal scenario
 * @param renewalHold     how long they are held while renewal traffic is counted
 * @param renewalLease    lease time of the renewed locks (Redisson's watchdog timeout, the etcd lease TTL)
 * @param maxWait         longest a single acquire may wait before it counts as a time-out
 * @param retake          contended: a thread needs the lock again at once after its release, rather than only once
 *                        another thread has had it (whether a lock hands over to a waiter or lets its last holder
 *                        take it again shows in the share of acquisitions by another thread)
 */
record BenchConfig(Duration warmup, Duration measure, int contenders, Duration hold, Duration thinkMax,
                   int manyThreads, int names, int renewalLocks,
                   Duration renewalHold, Duration renewalLease, Duration maxWait, boolean retake) {

    /** About twelve minutes with every store: 60 s of renewal per subject is most of it. */
    static BenchConfig full() {
        return new BenchConfig(Duration.ofSeconds(2), Duration.ofSeconds(4), 8, Duration.ofMillis(1),
                Duration.ofMillis(20), 32, 10_000, 10_000, Duration.ofSeconds(60), Duration.ofSeconds(30),
                Duration.ofSeconds(10), false);
    }

    /**
     * About four minutes: shorter windows, and a 6 s lease held for 12 s, so renewal runs about as many
     * rounds (one every lease/3) as the full run's 30 s lease does in 60 s.
     */
    static BenchConfig quick() {
        return new BenchConfig(Duration.ofMillis(500), Duration.ofMillis(1500), 8, Duration.ofMillis(1),
                Duration.ofMillis(20), 32, 10_000, 10_000, Duration.ofSeconds(12), Duration.ofSeconds(6),
                Duration.ofSeconds(10), false);
    }

    BenchConfig withRenewal(Duration newHold, Duration newLease, int newLocks) {
        return new BenchConfig(warmup, measure, contenders, hold, thinkMax, manyThreads, names, newLocks, newHold, newLease,
                maxWait, retake);
    }

    BenchConfig withContention(Duration newHold, Duration newThinkMax) {
        return new BenchConfig(warmup, measure, contenders, newHold, newThinkMax, manyThreads, names, renewalLocks,
                renewalHold, renewalLease, maxWait, retake);
    }

    BenchConfig withRetake(boolean newRetake) {
        return new BenchConfig(warmup, measure, contenders, hold, thinkMax, manyThreads, names, renewalLocks,
                renewalHold, renewalLease, maxWait, newRetake);
    }

    BenchConfig withTimes(Duration newWarmup, Duration newMeasure) {
        return new BenchConfig(newWarmup, newMeasure, contenders, hold, thinkMax, manyThreads, names, renewalLocks, renewalHold,
                renewalLease, maxWait, retake);
    }
}
