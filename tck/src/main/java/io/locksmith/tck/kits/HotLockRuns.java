package io.locksmith.tck.kits;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockTimeoutException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The measurement of R7.11 ({@link HotLockKit}): N threads of one client in a loop on one name. */
final class HotLockRuns {

    /** The bound of every acquire in the rule, as in the issue that found the collapse: acquire(10 s). */
    static final Duration BOUND = Duration.ofSeconds(10);
    private static final long HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private HotLockRuns() {
    }

    /** What one run of N threads on one name measured. */
    record Run(int threads, long acquisitions, double perSecond, long timeouts, long errors, long pastBound,
               long longestWaitMillis, List<Throwable> sampleErrors) {
        @Override
        public String toString() {
            return threads + " threads: " + acquisitions + " acquisitions (" + String.format("%.1f", perSecond)
                    + "/s), " + timeouts + " time-outs, " + errors + " errors, " + pastBound + " waits past "
                    + BOUND + " + 1 s, longest wait " + longestWaitMillis + " ms"
                    + (sampleErrors.isEmpty() ? "" : ", first error " + sampleErrors.get(0));
        }
    }

    /**
     * N threads of one client in a loop on one fresh name: acquire within {@link #BOUND}, hold 1 ms, release, for
     * {@code window}; then every thread still waiting is interrupted. Acquisitions are counted after a warm-up of a
     * quarter of the window.
     */
    static Run run(LockClient client, int threads, Duration window) throws InterruptedException {
        String name = "tck-hot-" + UUID.randomUUID();
        {
            AtomicLong acquisitions = new AtomicLong();
            AtomicLong timeouts = new AtomicLong();
            AtomicLong errors = new AtomicLong();
            AtomicLong pastBound = new AtomicLong();
            AtomicLong longest = new AtomicLong();
            AtomicInteger inside = new AtomicInteger();
            List<Throwable> sampleErrors = new java.util.concurrent.CopyOnWriteArrayList<>();
            // The window opens once every thread has started: starting a thousand threads takes a while on a busy
            // machine, and is not the lock's cost.
            CountDownLatch ready = new CountDownLatch(threads);
            CountDownLatch go = new CountDownLatch(1);
            long[] window0 = new long[3];
            CountDownLatch done = new CountDownLatch(threads);
            List<Thread> all = new ArrayList<>(threads);
            Map<Thread, Boolean> stopping = new ConcurrentHashMap<>();
            for (int i = 0; i < threads; i++) {
                Thread thread = new Thread(() -> {
                    try {
                        ready.countDown();
                        go.await();
                        long countFrom = window0[1];
                        long end = window0[2];
                        while (System.nanoTime() - end < 0 && !stopping.containsKey(Thread.currentThread())) {
                            long asked = System.nanoTime();
                            try (Lease lease = client.lock(name).acquire(BOUND)) {
                                long waited = System.nanoTime() - asked;
                                longest.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(waited), Math::max);
                                if (waited > BOUND.plusSeconds(1).toNanos()) {
                                    pastBound.incrementAndGet();
                                }
                                if (inside.incrementAndGet() != 1) {
                                    errors.incrementAndGet();
                                    sampleErrors.add(new AssertionError("two holders of " + name + " at once"));
                                }
                                LockSupport.parkNanos(HOLD_NANOS);
                                inside.decrementAndGet();
                                long now = System.nanoTime();
                                if (now - countFrom >= 0 && now - end < 0) {
                                    acquisitions.incrementAndGet();
                                }
                                lease.ensureHeld();
                            } catch (LockTimeoutException e) {
                                timeouts.incrementAndGet();
                                long waited = System.nanoTime() - asked;
                                if (waited > BOUND.plusSeconds(1).toNanos()) {
                                    pastBound.incrementAndGet();
                                }
                            } catch (LockInterruptedException e) {
                                return; // stopped at the end of the window
                            } catch (RuntimeException e) {
                                if (stopping.containsKey(Thread.currentThread())) {
                                    return; // an interrupt at the end of the window, seen during a store call
                                }
                                errors.incrementAndGet();
                                if (sampleErrors.size() < 3) {
                                    sampleErrors.add(e);
                                }
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        done.countDown();
                    }
                }, "tck-hot-" + i);
                thread.setDaemon(true);
                all.add(thread);
            }
            all.forEach(Thread::start);
            assertTrue(ready.await(60, TimeUnit.SECONDS), threads + " threads did not start within 60 s");
            long start = System.nanoTime();
            long countFrom = start + window.toNanos() / 4;
            long end = start + window.toNanos();
            window0[0] = start;
            window0[1] = countFrom;
            window0[2] = end;
            go.countDown();
            long untilEnd = end - System.nanoTime();
            if (untilEnd > 0) {
                TimeUnit.NANOSECONDS.sleep(untilEnd);
            }
            for (Thread thread : all) {
                stopping.put(thread, Boolean.TRUE);
                thread.interrupt();
            }
            assertTrue(done.await(BOUND.toSeconds() + 30, TimeUnit.SECONDS), "threads of the hot-lock run did not end"
                    + " within " + (BOUND.toSeconds() + 30) + " s of being interrupted");
            double seconds = (end - countFrom) / 1e9;
            return new Run(threads, acquisitions.get(), acquisitions.get() / seconds, timeouts.get(), errors.get(),
                    pastBound.get(), longest.get(), sampleErrors);
        }
    }
}
