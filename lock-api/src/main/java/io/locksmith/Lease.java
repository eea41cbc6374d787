package io.locksmith;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One holding of a distributed lock, returned by {@link DistributedLock#acquire}. Closing it releases
 * the hold: use it in try-with-resources.
 * <pre>{@code
 * try (Lease lease = lock.acquire(Duration.ofSeconds(3))) {
 *     inventory.deduct(item, 1, lease.fencingToken());   // the resource rejects stale tokens
 *     lease.ensureHeld();                                 // throws LockLostException if lost
 * }
 * }</pre>
 *
 * <h2>Ownership, re-entry and hand-off</h2>
 * A lease belongs to its holding, not to a thread: it may be used and closed from any thread, which suits
 * asynchronous code and virtual threads.
 *
 * <p>Re-entry is a convenience for a synchronous nested call, and nothing more. A lease from a blocking
 * {@link DistributedLock#acquire acquire} of a {@linkplain LockOptions#isReentrant() reentrant} lock is
 * <em>bound</em> to the thread that acquired it while that thread works inside the critical section: when that
 * thread acquires the same lock from the same client again, it gets another {@code Lease} sharing the same store
 * lock and fencing token, without a store round trip. The store lock is released when every lease sharing it is
 * closed.
 *
 * <p>A lease that moves to another thread must stop being re-entered by the thread it left, or that thread, serving
 * its next task, would enter a second critical section under the same fencing token while the first is still open,
 * which no fence can tell apart. So:
 * <ul>
 * <li>{@link #handOff()} ends the binding: call it before passing the lease to another thread (an executor, a
 *     callback, a reactive pipeline). From then on the former thread is excluded like any other caller: its
 *     acquire waits until the lease is closed, and then gets a new, greater fencing token.</li>
 * <li>A use of a bound lease from another thread that does the critical section's work (closing it,
 *     {@link #ensureHeld()}, {@link #fencingToken()}, {@link #onLost}) ends the binding too, as a safety net; it
 *     cannot undo a re-entry made before that use, so hand the lease off explicitly. Looking at a lease
 *     ({@link #isHeld()}, {@link #holdCount()}) from another thread, as a monitor does, changes nothing.</li>
 * <li>Leases from {@link DistributedLock#acquireAsync acquireAsync} and {@link DistributedLock#tryAcquireAsync
 *     tryAcquireAsync}, and from a lock whose options say {@linkplain LockOptions.Builder#reentrant(boolean) not
 *     reentrant}, are never bound: no thread ever re-enters them.</li>
 * </ul>
 *
 * <h2>Loss</h2>
 * A lease can be lost while held: its TTL ran out (fixed lease, or renewal failed for too long), the
 * maximum hold passed, the store lost it or gave it to someone else. The client then makes
 * {@link #isHeld()} false, makes {@link #ensureHeld()} throw, runs the {@link #onLost} callbacks once and,
 * if configured, interrupts the acquiring thread. Loss is judged on the monotonic clock from the time the
 * acquire or renewal request was sent, so a wall-clock jump cannot make a lease look longer.
 * A holder that may be paused (GC, swap) must still pass {@link #fencingToken()} to the resource: no check
 * made before a pause protects a write made after it.
 *
 * <p>All methods are thread-safe.
 */
public interface Lease extends AutoCloseable {

    /** The name of the lock. */
    String lockName();

    /**
     * The fencing token of this holding: for one lock name, strictly greater than the token of every
     * earlier holder (on stores that declare fencing). Re-entrant leases share the token.
     */
    long fencingToken();

    /** Who holds this lease. */
    HolderIdentity holder();

    /**
     * Whether the lease is still held: not closed, not lost, and its local deadline not passed.
     * A local check, with no store round trip.
     */
    boolean isHeld();

    /**
     * Checks that the lease is still held, as {@link #isHeld()}.
     *
     * @throws LockLostException     if the lease was lost, with the reason
     * @throws IllegalMonitorStateException if this lease was already closed
     */
    void ensureHeld();

    /**
     * Registers a callback run once when the lease is lost (not when it is released normally). If the
     * lease is already lost, the callback runs at once on the calling thread. Callbacks run on the
     * client's renewal thread otherwise: they must not block.
     *
     * @return this lease
     * @throws NullPointerException if {@code callback} is null
     */
    Lease onLost(Consumer<LeaseLostEvent> callback);

    /** How many open leases share this store lock (1 unless re-entered). */
    int holdCount();

    /**
     * Ends this lease's binding to the thread that acquired it, so that the lease can be passed to another thread:
     * from now on no thread re-enters this holding, and the former thread's next acquire of the lock waits like any
     * other caller's (see "Ownership, re-entry and hand-off" above). Leases sharing this holding by re-entry are
     * handed off with it. Does nothing to a lease that is not bound.
     *
     * @return this lease
     * @throws IllegalMonitorStateException if this lease was already closed
     */
    Lease handOff();

    /**
     * Releases this hold. When it is the last open lease sharing the store lock, the lock is released in
     * the store with an owner check, so a lease that had already expired can never free another holder's lock.
     * Closing a lease that is already closed, or that was lost, is a no-op.
     *
     * @throws LockStoreException if the store could not be reached to release the lock; the lease is
     *                            closed anyway, the client sends the release again in the background until the
     *                            store answers, and the lock runs out at its TTL at the latest
     */
    @Override
    void close();

    /**
     * Releases this hold as {@link #close()} does, without blocking the calling thread: the store request, if one is
     * needed, runs on one of the client's threads. The lease is closed when this method returns (a later
     * {@link #isHeld()} is false); the future completes when the store has answered, exceptionally with
     * {@link LockStoreException} if it could not be reached (the release is then sent again in the background until the
     * store answers; the lock runs out at its TTL at the latest). Dependent stages
     * without an executor of their own run on the client's threads and must not block.
     *
     * @return a future completed when the release is done
     */
    CompletableFuture<Void> closeAsync();

    /**
     * Sets the time this lease has left to {@code ttl}, counted from this call, as the store sees it: the store keeps
     * the lock that long (or until the lease is closed), then frees it, and the lease's local deadline moves with it.
     * For a lease that does not renew itself ({@link LockOptions.Builder#fixedLease()}): a job that needs longer than
     * it first said asks for more, one nearly done asks for less (ShedLock's {@code extend}). A renewing lease keeps
     * itself alive and is refused. Works from any thread; the lease stays bound to its thread as before.
     *
     * @param ttl the lease's new time from now
     * @return true if the store confirmed the new time; false if the lease is no longer held: closed, lost, or gone
     *         from the store (then reported lost to its {@link #onLost} callbacks)
     * @throws NullPointerException          if {@code ttl} is null
     * @throws IllegalArgumentException      if {@code ttl} is zero, negative, longer than
     *                                       {@link LockOptions#MAX_LEASE_TIME}, or shorter than the store can honour
     * @throws IllegalStateException         if the lease renews itself: its renewals would undo the new time
     * @throws LockStoreException            if the store did not answer within the client's call limit; the lease keeps
     *                                       the time it had
     * @throws LockInterruptedException      if the calling thread was interrupted while it waited for the store (its
     *                                       interrupt flag is set again); the lease keeps the time it had
     * @throws UnsupportedOperationException if this lease cannot set its time (a primitive's lease of several store
     *                                       locks, or a lease implementation that does not support it)
     */
    default boolean extend(Duration ttl) {
        throw new UnsupportedOperationException("lease on '" + lockName() + "' cannot set its time (" + getClass().getName()
                + ")");
    }

    /**
     * Closes this lease now and has the store keep the lock for {@code keep} more, counted from this call, then free
     * it: nobody else gets it before then (ShedLock's {@code lockAtLeastFor}: a scheduled job that finished early keeps
     * the other instances from running it again within that time). The lease is closed when this method returns
     * ({@link #isHeld()} is false) and is no longer renewed. On a store that applies a TTL (Redis, PostgreSQL) the lock's
     * TTL is set to {@code keep}, so it holds even if this process ends; on a store whose locks live with the client's
     * session (ZooKeeper, etcd) the client releases it at that time, and a process that ends first takes the lock with
     * its session, earlier. A {@code keep} of zero is {@link #close()}. When it is not the last lease sharing the store
     * lock by re-entry, the others keep it and {@code keep} has no effect.
     *
     * @param keep how long the store keeps the lock from now
     * @throws NullPointerException          if {@code keep} is null
     * @throws IllegalArgumentException      if {@code keep} is negative or longer than {@link LockOptions#MAX_LEASE_TIME}
     * @throws UnsupportedOperationException if this lease cannot keep its lock past its close (see {@link #extend})
     */
    default void closeAfter(Duration keep) {
        throw new UnsupportedOperationException("lease on '" + lockName() + "' cannot keep its lock past its close ("
                + getClass().getName() + ")");
    }
}
