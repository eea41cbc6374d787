package io.locksmith.etcd;

import io.locksmith.spi.Grant;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Gives every grant the TTL semantics the client expects although its lease is shared and kept alive:
 * a grant that is not renewed within its validity (a fixed lease, a holder past its maximum hold, a
 * client that stopped renewing) has its key deleted here, as etcd would delete the key of a lease of its
 * own. If this process stops altogether, the shared lease stops being kept alive and etcd deletes the key
 * within one TTL.
 *
 * <p>Why this timer stays in the provider although the shared client owns lease timers: it is the per-key TTL
 * that etcd no longer applies once keys share a lease, a store fact, not a second lease clock. The client
 * decides when the holder is told; this only deletes the key, at the TTL the grant asked for (counted from
 * before the request), never at the grant's shorter validity: deleting at the validity freed locks up to a
 * tenth of their TTL early whenever the shared lease had not been refreshed (R3.3). The client's release at
 * an expired lease's deadline does not replace it: the client cannot release while the store is unreachable,
 * and the key must still go at its TTL once the shared lease outlives that.
 */
final class LocalExpiry {

    private final ScheduledExecutorService scheduler;
    private final Consumer<Grant> expire;
    private final Map<String, ScheduledFuture<?>> timers = new ConcurrentHashMap<>();

    LocalExpiry(ScheduledExecutorService scheduler, Consumer<Grant> expire) {
        this.scheduler = scheduler;
        this.expire = expire;
    }

    /** (Re)arms the timer of {@code grant} to fire at {@code atNanos} ({@link System#nanoTime()}). */
    void arm(Grant grant, long atNanos) {
        String ownerId = grant.owner().id();
        ScheduledFuture<?> timer;
        try {
            timer = scheduler.schedule(() -> {
                if (timers.remove(ownerId) != null) {
                    expire.accept(grant);
                }
            }, Math.max(0, atNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            return;
        }
        ScheduledFuture<?> previous = timers.put(ownerId, timer);
        if (previous != null) {
            previous.cancel(false);
        }
    }

    /** Cancels the timer of {@code grant}; returns whether it was pending (had not fired). */
    boolean disarm(Grant grant) {
        ScheduledFuture<?> timer = timers.remove(grant.owner().id());
        if (timer != null) {
            timer.cancel(false);
            return true;
        }
        return false;
    }

    void close() {
        timers.values().forEach(timer -> timer.cancel(false));
        timers.clear();
    }
}
