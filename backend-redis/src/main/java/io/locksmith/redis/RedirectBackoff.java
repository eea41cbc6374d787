package io.locksmith.redis;

import io.locksmith.LockStoreException;

import java.util.concurrent.TimeUnit;

/**
 * The pauses of one Redis Cluster call between attempts that a node answered {@code TRYAGAIN} (the keys of a script are
 * split between the two nodes of a slot migration) or {@code CLUSTERDOWN} (a failover is on): no event tells when
 * either ends, so the call asks again after 5 ms, then twice as long each time up to 100 ms, never past its deadline.
 */
final class RedirectBackoff {

    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final long deadline;
    private final String description;
    private long nextPauseNanos = FIRST_PAUSE_NANOS;

    /**
     * @param deadline    the call's deadline, in {@link System#nanoTime()}
     * @param description the store, for the message of an interrupted pause
     */
    RedirectBackoff(long deadline, String description) {
        this.deadline = deadline;
        this.description = description;
    }

    /**
     * Sleeps for the next pause, cut at the deadline.
     *
     * @throws LockStoreException if the thread is interrupted (the flag is restored)
     */
    void pause() {
        long nanos = Math.min(nextPauseNanos, deadline - System.nanoTime());
        if (nanos > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(nanos);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LockStoreException(description + ": interrupted while the cluster redirected a call", e);
            }
        }
        nextPauseNanos = Math.min(MAX_PAUSE_NANOS, nextPauseNanos * 2);
    }
}
