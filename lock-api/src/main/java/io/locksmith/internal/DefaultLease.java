package io.locksmith.internal;

import io.locksmith.HolderIdentity;
import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockLostException;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/** One lease handle; re-entrant handles share a {@link HeldLock}. */
final class DefaultLease implements Lease {

    private final DefaultLockClient client;
    private final HeldLock lock;
    private final AtomicBoolean closed = new AtomicBoolean();

    DefaultLease(DefaultLockClient client, HeldLock lock) {
        this.client = client;
        this.lock = lock;
    }

    HeldLock heldLock() {
        return lock;
    }

    /**
     * A use that does the work of the critical section (the token, the held check before a write, a loss callback,
     * the close) from a thread other than the one the holding is bound to hands it off (see {@link Lease}). Looking
     * at it ({@link #isHeld()}, {@link #holdCount()}) does not: a monitor must not change who may re-enter.
     */
    private void usedHere() {
        client.unbind(lock, false);
    }

    @Override
    public String lockName() {
        return lock.name();
    }

    @Override
    public long fencingToken() {
        usedHere();
        return lock.grant.fencingToken();
    }

    @Override
    public HolderIdentity holder() {
        return lock.grant.owner().holder();
    }

    @Override
    public boolean isHeld() {
        if (closed.get()) {
            return false;
        }
        long now = System.nanoTime();
        if (lock.isHeld(now)) {
            return true;
        }
        noticeExpiry(now);
        return false;
    }

    @Override
    public void ensureHeld() {
        usedHere();
        if (closed.get()) {
            throw new IllegalMonitorStateException("lease on lock '" + lock.name() + "' (token "
                    + lock.grant.fencingToken() + ") was already closed");
        }
        long now = System.nanoTime();
        if (lock.isHeld(now)) {
            return;
        }
        noticeExpiry(now);
        LeaseLostEvent event = lock.lostEvent();
        if (event == null) {
            throw new IllegalMonitorStateException("lock '" + lock.name() + "' was released");
        }
        throw new LockLostException(event);
    }

    /** The deadline passed before the renewal thread noticed (it may be late, or this thread was paused). */
    private void noticeExpiry(long now) {
        if (lock.state() == HeldLock.State.HELD && now >= lock.deadline) {
            client.lose(lock, lock.expiryReason(now), "the lease ran out before it was renewed (noticed by the holder)",
                    lock.lastRenewalError);
        }
    }

    @Override
    public Lease onLost(Consumer<LeaseLostEvent> callback) {
        Objects.requireNonNull(callback, "callback cannot be null");
        usedHere();
        LeaseLostEvent already = lock.addLossCallback(callback);
        if (already != null) {
            DefaultLockClient.runCallback(callback, already);
        }
        return this;
    }

    @Override
    public int holdCount() {
        return lock.holdCount();
    }

    @Override
    public Lease handOff() {
        if (closed.get()) {
            throw new IllegalMonitorStateException("lease on lock '" + lock.name() + "' (token "
                    + lock.grant.fencingToken() + ") was already closed: there is nothing to hand off");
        }
        client.unbind(lock, true);
        return this;
    }

    @Override
    public void close() {
        usedHere();
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        HeldLock.State previous = lock.leaseClosed();
        if (previous != null) {
            client.lastLeaseClosed(lock, previous);
        }
    }

    @Override
    public CompletableFuture<Void> closeAsync() {
        usedHere();
        if (!closed.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null);
        }
        HeldLock.State previous = lock.leaseClosed();
        if (previous == null) {
            return CompletableFuture.completedFuture(null);
        }
        return client.lastLeaseClosedAsync(lock, previous);
    }

    @Override
    public boolean extend(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl cannot be null");
        usedHere();
        if (closed.get()) {
            return false;
        }
        return client.extend(lock, ttl);
    }

    @Override
    public void closeAfter(Duration keep) {
        Objects.requireNonNull(keep, "keep cannot be null");
        if (keep.isNegative() || keep.compareTo(io.locksmith.LockOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("keep must be between 0 and " + io.locksmith.LockOptions.MAX_LEASE_TIME
                    + ", was " + keep + " [lock '" + lock.name() + "']");
        }
        if (keep.isZero()) {
            close();
            return;
        }
        usedHere();
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        HeldLock.State previous = lock.leaseClosed();
        if (previous != null) {
            client.lastLeaseClosedAfter(lock, previous, keep);
        }
    }

    @Override
    public String toString() {
        return "Lease[" + lock.name() + ", token " + lock.grant.fencingToken() + ", "
                + (closed.get() ? "closed" : lock.state()) + "]";
    }
}
