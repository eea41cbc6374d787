package io.locksmith.internal;

import java.util.concurrent.Future;

/**
 * The client's one timer thread (the lease keeper's), as far as its other timed jobs need it: the linger of a
 * release subscription ({@link WaitQueues}) and the retries of a release at the end of a lease
 * ({@link GuaranteedReleases}). Tests drive it by hand.
 */
@FunctionalInterface
interface ClientTimer {
    /**
     * Runs {@code task} once after {@code delayNanos}, on the client's timer thread. The task must not block.
     *
     * @return a handle to cancel the task with, or null if the timer is closed (the task then never runs)
     */
    Future<?> schedule(Runnable task, long delayNanos);
}
