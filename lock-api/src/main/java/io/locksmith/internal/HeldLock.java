package io.locksmith.internal;

import io.locksmith.LeaseLostEvent;
import io.locksmith.LockOptions;
import io.locksmith.LossReason;
import io.locksmith.spi.Grant;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One store lock held by a client, shared by the re-entrant leases on it. Holds the timing state the
 * renewal thread works on; all times are {@link System#nanoTime()} values.
 */
final class HeldLock {

    enum State { HELD, RELEASED, LOST }

    final Grant grant;
    final LockOptions options;
    /** The TTL asked for at each confirmation; changed only by {@link #extendedTo}. */
    volatile long ttlNanos;
    /**
     * The thread working in the critical section: the thread of a blocking acquire, until the lease is handed off
     * (explicitly, or by being used from another thread); null for an asynchronous acquire and after a hand-off. Only
     * this thread re-enters the lock ({@link #reentrant}), and only it is interrupted on loss
     * ({@link io.locksmith.LossAction#NOTIFY_AND_INTERRUPT_HOLDER}).
     */
    private volatile Thread thread;
    /** Whether {@link #thread} may re-enter: the lock's options allow re-entry. */
    final boolean reentrant;
    final long acquiredAt;
    /** When renewal stops for good, or {@link Long#MAX_VALUE}. */
    final long maxHoldAt;

    private State state = State.HELD;
    private int holdCount = 1;
    private LeaseLostEvent lostEvent;
    private List<Consumer<LeaseLostEvent>> lossCallbacks;

    /** Past this the store may have freed the lock; the lease counts as lost. Written by one thread at a time. */
    volatile long deadline;
    /**
     * When the TTL asked for at the last confirmation runs out, counted from before its request: a store may keep
     * the lock until then, so freeing it earlier frees it early for everyone else (R3.2, R3.3).
     */
    volatile long ttlEndsAt;
    /** When the renewal thread should renew next. */
    volatile long renewAt;
    /** Whether the last renewal attempt failed with a store error (the loss reason if the deadline passes). */
    volatile boolean lastRenewalFailed;
    volatile Throwable lastRenewalError;

    /**
     * @param thread the thread of a blocking acquire, or null for an asynchronous one
     */
    HeldLock(Grant grant, LockOptions options, long ttlNanos, long sentAt, long acquiredAt, Thread thread) {
        this.grant = grant;
        this.options = options;
        this.ttlNanos = ttlNanos;
        this.thread = thread;
        this.reentrant = thread != null && options.isReentrant();
        this.acquiredAt = acquiredAt;
        this.maxHoldAt = options.isRenewing() && options.maxHold().isPresent()
                ? saturatedAdd(acquiredAt, DefaultLockClient.saturatedNanos(options.maxHold().get()))
                : Long.MAX_VALUE;
        confirmed(sentAt, DefaultLockClient.saturatedNanos(grant.validity()));
    }

    /** The store confirmed the lock for {@code validityNanos} from {@code sentAt}. */
    void confirmed(long sentAt, long validityNanos) {
        // Saturating: a lease time near the limit must not wrap a deadline into the past.
        this.deadline = saturatedAdd(sentAt, validityNanos - driftMargin(validityNanos));
        this.ttlEndsAt = saturatedAdd(sentAt, ttlNanos);
        this.renewAt = saturatedAdd(sentAt, ttlNanos / 3);
        this.lastRenewalFailed = false;
        this.lastRenewalError = null;
    }

    /** The store confirmed a new TTL of {@code newTtlNanos} from {@code sentAt} ({@link io.locksmith.Lease#extend}). */
    synchronized void extendedTo(long sentAt, long newTtlNanos) {
        this.ttlNanos = newTtlNanos;
        confirmed(sentAt, newTtlNanos);
    }

    /**
     * A safety margin against the store's clock running faster than ours, as RedLock does:
     * 1% of the validity plus 2 ms.
     */
    static long driftMargin(long validityNanos) {
        return validityNanos / 100 + 2_000_000L;
    }

    boolean wantsRenewal(long now) {
        return options.isRenewing() && now < maxHoldAt;
    }

    String name() {
        return grant.name();
    }

    /** The thread working in the critical section, or null once handed off (see {@link #thread}). */
    Thread thread() {
        return thread;
    }

    /**
     * Ends the binding to the working thread, if the caller is not that thread (or {@code always}).
     *
     * @return the thread the lock was bound to if this call ended the binding, else null
     */
    Thread unbindUnlessOn(Thread caller, boolean always) {
        Thread bound = thread;
        if (bound == null || (!always && bound == caller)) {
            return null;
        }
        synchronized (this) {
            if (thread != bound) {
                return null;
            }
            thread = null;
            return bound;
        }
    }

    synchronized State state() {
        return state;
    }

    synchronized boolean isHeld(long now) {
        return state == State.HELD && now < deadline;
    }

    /** Counts one more re-entrant lease for {@code caller}, unless the lock is no longer held or not bound to it. */
    synchronized boolean tryReenter(Thread caller) {
        if (state != State.HELD || holdCount == 0 || !reentrant || thread != caller) {
            return false;
        }
        holdCount++;
        return true;
    }

    synchronized int holdCount() {
        return holdCount;
    }

    /**
     * One lease closed.
     *
     * @return the state the lock was in if this was the last lease, or null if others remain
     */
    synchronized State leaseClosed() {
        if (holdCount == 0) {
            return null;
        }
        holdCount--;
        if (holdCount > 0) {
            return null;
        }
        State previous = state;
        if (state == State.HELD) {
            state = State.RELEASED;
        }
        return previous;
    }

    /**
     * Marks the lock lost, once.
     *
     * @return the callbacks to run, or null if it was not held any more
     */
    synchronized List<Consumer<LeaseLostEvent>> markLost(LeaseLostEvent event) {
        if (state != State.HELD) {
            return null;
        }
        state = State.LOST;
        lostEvent = event;
        List<Consumer<LeaseLostEvent>> callbacks = lossCallbacks == null ? List.of() : lossCallbacks;
        lossCallbacks = null;
        return callbacks;
    }

    /** Takes the loss callbacks out, for a loss discovered after the lock was released locally. */
    synchronized List<Consumer<LeaseLostEvent>> drainCallbacks() {
        List<Consumer<LeaseLostEvent>> callbacks = lossCallbacks == null ? List.of() : lossCallbacks;
        lossCallbacks = null;
        return callbacks;
    }

    synchronized LeaseLostEvent lostEvent() {
        return lostEvent;
    }

    /**
     * Adds a loss callback.
     *
     * @return the loss event if the lock is already lost (the caller runs the callback), else null
     */
    synchronized LeaseLostEvent addLossCallback(Consumer<LeaseLostEvent> callback) {
        if (state == State.LOST) {
            return lostEvent;
        }
        if (state == State.HELD) {
            if (lossCallbacks == null) {
                lossCallbacks = new ArrayList<>(1);
            }
            lossCallbacks.add(callback);
        }
        return null;
    }

    /** The reason to give when the local deadline passed. */
    LossReason expiryReason(long now) {
        if (options.isRenewing() && now >= maxHoldAt) {
            return LossReason.MAX_HOLD_EXCEEDED;
        }
        if (lastRenewalFailed) {
            return LossReason.STORE_UNREACHABLE;
        }
        return LossReason.EXPIRED;
    }

    static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
