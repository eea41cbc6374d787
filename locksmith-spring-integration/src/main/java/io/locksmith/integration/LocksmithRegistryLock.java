package io.locksmith.integration;

import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockLostException;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.LossReason;
import org.springframework.integration.support.locks.DistributedLock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The lock of one key of a {@link LocksmithLockRegistry}: a Spring Integration {@link DistributedLock} over one
 * Locksmith lock, owned by the thread that locked it, as Spring Integration's registries' locks are.
 *
 * <h2>Ownership and re-entry</h2>
 * The thread that acquires the lock owns it: it may lock it again (each lock is undone by one {@link #unlock()}),
 * and only it may unlock it. Another thread of this process, like any other process, waits in the Locksmith client
 * until the lock is released. Every re-entry <em>confirms</em> the holding first, as Spring Integration's own
 * registries do, which {@code LockRegistryLeaderInitiator} relies on to notice a lost leadership: a lease of a fixed
 * time is extended in the store to the time asked (the store answers whether it is still the holder's), a renewing
 * lease is checked against its local deadline (which passes before the store would let another holder in). A
 * re-entering {@code tryLock} that finds the lease lost answers {@code false}; a re-entering {@code lock} throws
 * {@link LockLostException}. Either way the lost holding ends there: the thread owns nothing, and its next acquire
 * starts a new holding with a new, greater fencing token.
 *
 * <h2>Lease time</h2>
 * {@link #lock()}, {@link #lockInterruptibly()} and the {@code tryLock} methods without a time-to-live take the
 * registry's lease: the client's renewing lease, or a fixed lease of the registry's {@code expireAfter}.
 * {@link #lock(Duration)} and {@link #tryLock(Duration, Duration)} take a fixed lease of the time-to-live given: the
 * store frees the lock after that long unless it is {@linkplain LocksmithLockRegistry#renewLock(Object, Duration)
 * renewed} or re-entered; the holder is then told through {@link #unlock()} (which throws
 * {@link LockLostException}), and through the lease's {@code onLost} callbacks ({@link #currentLease()}).
 *
 * <h2>Fencing</h2>
 * {@link #fencingToken()} gives the owner the token of its holding: pass it to the resource the critical section
 * writes, which rejects a write with a smaller token than one it has seen. No Spring Integration registry has one.
 *
 * <p>{@link #newCondition()} is not supported. All methods are thread-safe.
 */
public final class LocksmithRegistryLock implements DistributedLock {

    private final LocksmithLockRegistry registry;
    private final LockClient client;
    private final String name;
    private final io.locksmith.DistributedLock storeLock;

    /** Written by the owner while it holds the lock (and by the thread that acquires it next), read by any. */
    private volatile Thread owner;
    private volatile Lease lease;
    /** The fixed time of the holding, null when its lease renews itself. */
    private volatile Duration holdingTtl;
    /** How many times the owner locked it; only the owner touches it. */
    private int holds;
    /** The last holding a thread learned it had lost: its later {@code unlock()} calls report that loss. */
    private volatile LostHolding lastLost;
    private volatile long lastUsedMillis;
    /** The registry's use counter at this lock's last use: the LRU order (two uses in one millisecond stay ordered). */
    private volatile long lastUse;

    LocksmithRegistryLock(LocksmithLockRegistry registry, LockClient client, String name, LockOptions options) {
        this.registry = registry;
        this.client = client;
        this.name = name;
        this.storeLock = client.lock(name, options);
        touch();
    }

    /** The Locksmith lock name of this key: the registry's prefix and the key. */
    public String name() {
        return name;
    }

    /**
     * Acquires the lock with the registry's lease, waiting as long as it takes; an interrupt does not end the wait
     * (it is set again when this method returns). The owner re-enters after confirming its holding.
     *
     * @throws LockLostException  if the calling thread holds this lock and its lease was lost; the holding ends
     * @throws LockStoreException if the store failed
     * @throws IllegalStateException if the client is closed
     */
    @Override
    public void lock() {
        lockUninterruptibly(null);
    }

    /**
     * Acquires the lock with a fixed lease of {@code ttl}, waiting as long as it takes; an interrupt does not end the
     * wait. The owner re-enters after extending its lease to {@code ttl} (a renewing holding is only confirmed).
     *
     * @throws NullPointerException     if {@code ttl} is null
     * @throws IllegalArgumentException if {@code ttl} is zero, negative, or longer than
     *                                  {@link LockOptions#MAX_LEASE_TIME}
     * @throws LockLostException        if the calling thread holds this lock and its lease was lost; the holding ends
     * @throws LockStoreException       if the store failed
     */
    @Override
    public void lock(Duration ttl) {
        lockUninterruptibly(requireTtl(ttl));
    }

    private void lockUninterruptibly(Duration ttl) {
        if (reenter(ttl, true)) {
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    own(lockFor(ttl).acquire(), ttl);
                    return;
                } catch (LockInterruptedException e) {
                    // Lock.lock() is not interruptible: keep waiting, and set the flag again when done.
                    Thread.interrupted();
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Acquires the lock with the registry's lease, waiting until it is granted or the thread is interrupted.
     *
     * @throws InterruptedException if the thread is interrupted while waiting (its flag is cleared, as
     *                              {@code Lock} says)
     * @throws LockLostException    if the calling thread holds this lock and its lease was lost; the holding ends
     * @throws LockStoreException   if the store failed
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (reenter(null, true)) {
            return;
        }
        try {
            own(storeLock.acquire(), null);
        } catch (LockInterruptedException e) {
            throw interruption(e);
        }
    }

    /**
     * Acquires the lock with the registry's lease if it is free now: one store attempt. The owner re-enters if its
     * holding is confirmed.
     *
     * @return true if the calling thread holds the lock now; false if another holder has it, or if the calling
     *         thread's own lease was found lost (the holding then ends)
     * @throws LockStoreException if the store failed
     */
    @Override
    public boolean tryLock() {
        if (owner == Thread.currentThread()) {
            return reenter(null, false);
        }
        return storeLock.tryAcquire().map(acquired -> own(acquired, null)).isPresent();
    }

    /**
     * Acquires the lock with the registry's lease, waiting at most {@code time}; a negative time is no wait.
     *
     * @return as {@link #tryLock()}, or false if the lock was not obtained in time
     * @throws NullPointerException if {@code unit} is null
     * @throws InterruptedException if the thread is interrupted while waiting
     * @throws LockStoreException   if the store failed
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit cannot be null");
        return tryLockFor(Duration.ofNanos(Math.max(0, unit.toNanos(time))), null);
    }

    /**
     * Acquires the lock with a fixed lease of {@code ttl}, waiting at most {@code waitTime}; a negative wait is no
     * wait. The owner re-enters if its lease could be extended to {@code ttl} (a renewing holding: if it is still
     * held).
     *
     * @return true if the calling thread holds the lock now; false if it was not obtained in time, or if the calling
     *         thread's own lease was found lost (the holding then ends)
     * @throws NullPointerException     if {@code waitTime} or {@code ttl} is null
     * @throws IllegalArgumentException if {@code ttl} is zero, negative, or longer than
     *                                  {@link LockOptions#MAX_LEASE_TIME}
     * @throws InterruptedException     if the thread is interrupted while waiting
     * @throws LockStoreException       if the store failed
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        Objects.requireNonNull(waitTime, "waitTime cannot be null");
        return tryLockFor(waitTime.isNegative() ? Duration.ZERO : waitTime, requireTtl(ttl));
    }

    private boolean tryLockFor(Duration wait, Duration ttl) throws InterruptedException {
        try {
            if (owner == Thread.currentThread()) {
                return reenter(ttl, false);
            }
            return lockFor(ttl).tryAcquire(wait).map(acquired -> own(acquired, ttl)).isPresent();
        } catch (LockInterruptedException e) {
            throw interruption(e);
        }
    }

    /**
     * Undoes one lock by the owner; the last one releases the lock in the store (owner-checked).
     *
     * @throws IllegalStateException if the calling thread does not own the lock
     * @throws LockLostException     if the holding's lease was lost before this release (the data the lock protected
     *                               may have been changed by another holder meanwhile); also for every unlock by a
     *                               thread after a re-entry told it of its loss. The holding ends either way
     * @throws LockStoreException    if the store could not be reached to release the lock: the holding ends here,
     *                               the client releases it in the background, and it runs out at its lease time at the
     *                               latest
     */
    @Override
    public void unlock() {
        Thread me = Thread.currentThread();
        if (owner != me) {
            LostHolding lost = lastLost;
            if (lost != null && lost.thread == me) {
                throw new LockLostException(lost.event, "lock '" + name + "' was lost while this thread held it ("
                        + lost.event.reason() + "), which a re-entry found; there is nothing to unlock");
            }
            throw new IllegalStateException("You do not own lock '" + name + "': held by "
                    + (owner == null ? "no thread of this process" : "thread " + owner.getName()));
        }
        if (holds > 1) {
            holds--;
            return;
        }
        Lease ending = lease;
        LockLostException lost = ending.isHeld() ? null : lossOf(ending);
        disown();
        ending.close();
        if (lost != null) {
            throw lost;
        }
    }

    /**
     * Not supported.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("distributed locks have no conditions: " + name);
    }

    /**
     * The fencing token of the calling thread's holding.
     *
     * @throws IllegalStateException if the calling thread does not hold the lock
     */
    public long fencingToken() {
        if (owner != Thread.currentThread()) {
            throw new IllegalStateException("lock '" + name + "' is not held by this thread: it has no fencing token");
        }
        return lease.fencingToken();
    }

    /**
     * The lease of the calling thread's holding, to watch it ({@code onLost}, {@code isHeld}) or fence with it; close
     * it only through {@link #unlock()}.
     *
     * @return the lease, or empty if the calling thread does not hold the lock
     */
    public Optional<Lease> currentLease() {
        return owner == Thread.currentThread() ? Optional.of(lease) : Optional.empty();
    }

    /** Whether a thread of this process holds the lock (its lease may have been lost since). A local check. */
    public boolean isAcquiredInThisProcess() {
        return owner != null;
    }

    /**
     * Sets the owner's fixed lease to {@code ttl} from now, or confirms a renewing lease.
     *
     * @throws IllegalStateException if the calling thread does not own the lock, or if {@code ttl} is explicit and
     *                               the lease renews itself
     * @throws LockLostException     if the lease is no longer held
     */
    void renew(Duration ttl) {
        if (owner != Thread.currentThread()) {
            throw new IllegalStateException("Could not renew lock '" + name + "': it is not held by this thread");
        }
        Lease held = lease;
        Duration time = ttl != null ? ttl : holdingTtl;
        if (time == null) {
            held.ensureHeld();
            return;
        }
        if (holdingTtl == null) {
            throw new IllegalStateException("Could not renew lock '" + name + "' for " + ttl + ": its lease renews itself"
                    + " (a registry without expireAfter); lock it with a time-to-live to set its time");
        }
        if (!held.extend(time)) {
            throw lossOf(held);
        }
        holdingTtl = time;
    }

    long lastUsedMillis() {
        return lastUsedMillis;
    }

    long lastUse() {
        return lastUse;
    }

    void touch() {
        lastUsedMillis = System.currentTimeMillis();
        lastUse = registry.nextUse();
    }

    /**
     * Re-enters if the calling thread owns the lock and its holding is confirmed (a fixed lease extended in the store,
     * a renewing one checked locally). Returns false if the calling thread is not the owner. A holding found lost ends
     * here: false, or {@link LockLostException} when {@code throwOnLoss}.
     */
    private boolean reenter(Duration ttl, boolean throwOnLoss) {
        if (owner != Thread.currentThread()) {
            return false;
        }
        Lease held = lease;
        boolean confirmed;
        Duration time = ttl != null ? ttl : holdingTtl;
        if (holdingTtl != null && time != null) {
            confirmed = held.extend(time);
            if (confirmed) {
                holdingTtl = time;
            }
        } else {
            confirmed = held.isHeld();
        }
        if (confirmed) {
            holds++;
            touch();
            return true;
        }
        LockLostException lost = lossOf(held);
        lastLost = new LostHolding(Thread.currentThread(), lost.event());
        disown();
        held.close();
        if (throwOnLoss) {
            throw lost;
        }
        return false;
    }

    private boolean own(Lease acquired, Duration ttl) {
        lease = acquired;
        holdingTtl = ttl != null ? ttl : registry.expireAfter().orElse(null);
        holds = 1;
        LostHolding lost = lastLost;
        if (lost != null && lost.thread == Thread.currentThread()) {
            lastLost = null;
        }
        owner = Thread.currentThread();
        touch();
        return true;
    }

    private void disown() {
        holds = 0;
        holdingTtl = null;
        owner = null;
        touch();
    }

    private io.locksmith.DistributedLock lockFor(Duration ttl) {
        if (ttl == null) {
            return storeLock;
        }
        return client.lock(name, storeLock.options().toBuilder().fixedLease().leaseTime(ttl).build());
    }

    /** Why {@code held}, which is no longer held, was lost. */
    private LockLostException lossOf(Lease held) {
        try {
            held.ensureHeld();
        } catch (LockLostException e) {
            return e;
        }
        // Confirmed lost by the store (an extend it refused) before the lease's own loss tracking caught up.
        return new LockLostException(new LeaseLostEvent(name, held.fencingToken(), held.holder(), LossReason.TAKEN_AWAY,
                "the store no longer holds it for this holder", null));
    }

    private static Duration requireTtl(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl cannot be null");
        LockOptions.builder().leaseTime(ttl);   // validates: positive, at most MAX_LEASE_TIME
        return ttl;
    }

    private static InterruptedException interruption(LockInterruptedException e) {
        // Lock's contract: the InterruptedException replaces the flag.
        Thread.interrupted();
        return e.getCause() instanceof InterruptedException cause ? cause : new InterruptedException(e.getMessage());
    }

    @Override
    public String toString() {
        Thread holder = owner;
        return "LocksmithRegistryLock[" + name + (holder == null ? ", free here" : ", held by " + holder.getName())
                + " on " + client.describe() + "]";
    }

    private record LostHolding(Thread thread, LeaseLostEvent event) {
    }
}
