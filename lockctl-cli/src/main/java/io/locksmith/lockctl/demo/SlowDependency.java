package io.locksmith.lockctl.demo;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The payment service the critical section calls: usually a few milliseconds, but every
 * {@code stallEvery}-th call hangs for {@link DemoSettings#stall()}, past the lease. Deterministic: the
 * n-th call of a run always behaves the same for a given seed, whichever instance makes it.
 */
final class SlowDependency {

    private final DemoSettings settings;
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicInteger stalls = new AtomicInteger();

    SlowDependency(DemoSettings settings) {
        this.settings = settings;
    }

    /** Calls the dependency; the sleep stands for the remote call's latency. */
    void call() throws InterruptedException {
        int number = calls.incrementAndGet();
        if (number % settings.stallEvery() == 0) {
            stalls.incrementAndGet();
            TimeUnit.NANOSECONDS.sleep(settings.stall().toNanos());
        } else {
            SplittableRandom random = new SplittableRandom(settings.seed() * 1_000_003L + number);
            TimeUnit.MICROSECONDS.sleep(500 + random.nextInt(3_500));
        }
    }

    /** Whether order {@code orderNumber} pauses between its lease check and its write (a GC pause). */
    boolean pausesAfterCheck(int orderNumber) {
        return orderNumber % settings.gcPauseEvery() == 0;
    }

    void pauseAfterCheck() throws InterruptedException {
        stalls.incrementAndGet();
        TimeUnit.NANOSECONDS.sleep(settings.stall().toNanos());
    }

    int stalls() {
        return stalls.get();
    }
}
