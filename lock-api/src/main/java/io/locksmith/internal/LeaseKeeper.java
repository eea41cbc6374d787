package io.locksmith.internal;

import io.locksmith.LockEvent;
import io.locksmith.LockException;
import io.locksmith.LossReason;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.RenewRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one background thread of a client: renews the renewing leases and notices leases whose local
 * deadline passed. It wakes when the earliest lease needs it, not on a fixed beat, and renews in batches:
 * when one lease is due, every lease within the last sixth of its renewal interval goes in the same
 * store request, so renewal traffic grows with the number of clients rather than of held locks.
 */
final class LeaseKeeper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);
    private static final long IDLE_WAKE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How soon a failed renewal is tried again, at most. */
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final DefaultLockClient client;
    private final LockProvider provider;
    private final Events events;
    private final ScheduledThreadPoolExecutor executor;
    private final Set<HeldLock> held = ConcurrentHashMap.newKeySet();

    private final Object scheduleLock = new Object();
    private ScheduledFuture<?> pending;
    private long pendingAt;

    LeaseKeeper(DefaultLockClient client, LockProvider provider, Events events, String threadName) {
        this.client = client;
        this.provider = provider;
        this.events = events;
        this.executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        this.executor.setRemoveOnCancelPolicy(true);
    }

    void add(HeldLock lock) {
        held.add(lock);
        wakeBy(nextEventAt(lock, System.nanoTime()));
    }

    void remove(HeldLock lock) {
        held.remove(lock);
    }

    Set<HeldLock> held() {
        return held;
    }

    private static long nextEventAt(HeldLock lock, long now) {
        long at = lock.deadline;
        if (lock.wantsRenewal(now)) {
            at = Math.min(at, lock.renewAt);
        }
        return at;
    }

    private void wakeBy(long at) {
        synchronized (scheduleLock) {
            if (executor.isShutdown()) {
                return;
            }
            // Close enough to the pending wake-up: keep it, rescheduling costs more than a millisecond late.
            if (pending != null && !pending.isDone() && pendingAt - at < TimeUnit.MILLISECONDS.toNanos(1)) {
                return;
            }
            if (pending != null) {
                pending.cancel(false);
            }
            pendingAt = at;
            pending = executor.schedule(this::tick, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
    }

    private void tick() {
        synchronized (scheduleLock) {
            pending = null;
        }
        try {
            expireAndRenew();
        } catch (RuntimeException | Error e) {
            LOG.error("lock renewal thread failed; it keeps running", e);
        }
        long now = System.nanoTime();
        long next = now + IDLE_WAKE_NANOS;
        for (HeldLock lock : held) {
            next = Math.min(next, nextEventAt(lock, now));
        }
        wakeBy(Math.max(next, now + TimeUnit.MILLISECONDS.toNanos(1)));
    }

    private void expireAndRenew() {
        long now = System.nanoTime();
        List<HeldLock> due = new ArrayList<>();
        for (HeldLock lock : held) {
            if (lock.state() != HeldLock.State.HELD) {
                held.remove(lock);
                continue;
            }
            if (now >= lock.deadline) {
                client.lose(lock, lock.expiryReason(now), expiryDetail(lock, now), lock.lastRenewalError);
                continue;
            }
            if (lock.wantsRenewal(now) && now >= lock.renewAt - lock.ttlNanos / 6) {
                due.add(lock);
            }
        }
        if (!due.isEmpty()) {
            renew(due);
        }
    }

    private static String expiryDetail(HeldLock lock, long now) {
        long heldMillis = TimeUnit.NANOSECONDS.toMillis(now - lock.acquiredAt);
        return switch (lock.expiryReason(now)) {
            case MAX_HOLD_EXCEEDED -> "held for " + heldMillis + " ms, past the maximum hold of "
                    + lock.options.maxHold().map(Duration::toString).orElse("?") + "; renewal stopped";
            case STORE_UNREACHABLE -> "renewal failed until the lease ran out after " + heldMillis + " ms";
            default -> "the lease time of " + lock.options.leaseTime() + " ran out after " + heldMillis
                    + " ms of holding" + (lock.options.isRenewing() ? "" : " (fixed lease, not renewed)");
        };
    }

    private void renew(List<HeldLock> due) {
        List<RenewRequest> requests = new ArrayList<>(due.size());
        for (HeldLock lock : due) {
            requests.add(new RenewRequest(lock.grant, Duration.ofNanos(lock.ttlNanos)));
        }
        long sentAt = System.nanoTime();
        List<Boolean> results;
        try {
            results = provider.renewAll(requests);
            client.outage.succeeded(sentAt);
        } catch (LockException | UnsupportedOperationException e) {
            client.outage.failed(sentAt, e);
            long retryAt = System.nanoTime() + RETRY_NANOS;
            for (HeldLock lock : due) {
                lock.lastRenewalFailed = true;
                lock.lastRenewalError = e;
                lock.renewAt = Math.min(retryAt, lock.deadline);
                events.emit(LockEvent.Type.RENEW_FAILED, lock.name(), lock.grant.fencingToken(),
                        lock.grant.owner().holder(), 0, e);
            }
            LOG.warn("renewing {} lock(s) on {} failed; retrying until their leases run out: {}", due.size(),
                    provider.describe(), e.toString());
            return;
        }
        if (results.size() != due.size()) {
            throw new IllegalStateException(provider.describe() + " answered " + results.size()
                    + " renewal results for " + due.size() + " requests");
        }
        for (int i = 0; i < due.size(); i++) {
            HeldLock lock = due.get(i);
            if (Boolean.TRUE.equals(results.get(i))) {
                lock.confirmed(sentAt, lock.ttlNanos);
                events.emit(LockEvent.Type.RENEWED, lock.name(), lock.grant.fencingToken(),
                        lock.grant.owner().holder(), 0, null);
            } else {
                client.lose(lock, LossReason.TAKEN_AWAY,
                        "the store no longer has this holder's lock (expired, deleted or taken by another holder)",
                        null);
            }
        }
    }

    /**
     * Runs {@code task} on the renewal thread after {@code delayNanos}, unless the keeper is closed by then: the
     * client's timers share this thread rather than starting their own. The task must not block.
     *
     * @return the handle to cancel the task with, or null if the keeper is closed (the task never runs)
     */
    ScheduledFuture<?> runLater(Runnable task, long delayNanos) {
        synchronized (scheduleLock) {
            if (executor.isShutdown()) {
                return null;
            }
            return executor.schedule(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.warn("a background task of the lock client failed", e);
                }
            }, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void close() {
        synchronized (scheduleLock) {
            executor.shutdownNow();
        }
    }
}
