package io.locksmith;

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
 * <h2>Ownership</h2>
 * A lease belongs to the object, not to a thread: it may be closed from any thread, which suits
 * asynchronous code and virtual threads. Re-entry is counted locally: when the thread that acquired a
 * lease acquires the same lock from the same client again, it gets another {@code Lease} sharing the
 * same store lock and fencing token, without a store round trip. The store lock is released when every
 * lease sharing it is closed.
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
     * Releases this hold. When it is the last open lease sharing the store lock, the lock is released in
     * the store with an owner check, so a lease that had already expired can never free another holder's lock.
     * Closing a lease that is already closed, or that was lost, is a no-op.
     *
     * @throws LockStoreException if the store could not be reached to release the lock; the lease is
     *                            closed anyway and the lock runs out at its TTL
     */
    @Override
    void close();
}
