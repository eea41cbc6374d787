package io.locksmith;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A counting semaphore in a store, with leased permits: obtained from {@link LockClient#semaphore(String, int)}.
 * At most {@link #permits()} permits are held at once as the store sees it, whatever the clients do; each
 * {@link PermitLease} holds one or more of them, expires by the store's clock unless renewed (as a {@link Lease}
 * does, with the same {@link LockOptions}), and is released by closing it or by its {@linkplain PermitLease#id() id}.
 * <pre>{@code
 * DistributedSemaphore exports = client.semaphore("exports", 4);      // at most 4 exports at once
 * try (PermitLease permit = exports.acquire(1, Duration.ofSeconds(5))) {
 *     runExport(permit.fencingToken());
 * }
 * }</pre>
 *
 * <h2>How it is stored</h2>
 * Each permit is a lock of its own in the store, named {@code NAME#permit:I} for I from 0 to {@code permits - 1},
 * and acquirers line up on the lock {@code NAME#permit/gate}: so a semaphore is exactly as safe as the store's
 * locks (the kit's rules, faults included), runs on every store and on {@code migrate:}, and a crashed holder's
 * permits return when their leases run out. One acquirer at a time, the one holding the gate, takes permits; it
 * waits for them on the store's release notifications and holds the gate while it waits, so a request for many
 * permits is not starved by requests for one, and acquirers are served in the gate's order (arrival order where
 * the store is {@link Capability#FAIR fair}). An acquire costs the gate's acquire and release plus one store call
 * per permit (made in parallel); see docs/PRIMITIVES.md for measured costs.
 *
 * <h2>Size</h2>
 * The number of permits is part of a semaphore's identity: every client must use the same number for one name.
 * A client with fewer permits uses fewer permit locks: it never lets more than its own number be held through it,
 * but the store then counts at most the largest number any client uses. To resize, roll the new number out to
 * every client; permits held above a smaller new size stay held until they are released or run out, and no
 * client takes them again.
 *
 * <h2>Errors</h2>
 * All methods throw {@link LockStoreException} when the store cannot be reached, and {@link IllegalStateException}
 * when the client is closed. No method accepts null.
 */
public interface DistributedSemaphore {

    /** The most permits one semaphore can have. */
    int MAX_PERMITS = 256;

    /** The name of this semaphore. */
    String name();

    /** How many permits this semaphore has. */
    int permits();

    /** The options of every permit lease (lease time, renewal, maximum hold, loss action). */
    LockOptions options();

    /**
     * Acquires {@code permits} permits, all or none, waiting at most {@code maxWait}.
     *
     * @return the lease holding them
     * @throws LockTimeoutException      if they were not all obtained within {@code maxWait}; none is held then
     * @throws LockInterruptedException  if the thread is interrupted while waiting (the interrupt flag is set again)
     * @throws NullPointerException      if {@code maxWait} is null
     * @throws IllegalArgumentException  if {@code permits} is not between 1 and {@link #permits()}, or
     *                                   {@code maxWait} is negative
     */
    PermitLease acquire(int permits, Duration maxWait);

    /**
     * Acquires {@code permits} permits, all or none, waiting at most {@code maxWait}; a zero wait makes one attempt.
     *
     * @return the lease, or empty if they were not all obtained within {@code maxWait}
     * @throws LockInterruptedException  if the thread is interrupted while waiting (the interrupt flag is set again)
     * @throws NullPointerException      if {@code maxWait} is null
     * @throws IllegalArgumentException  as {@link #acquire}
     */
    Optional<PermitLease> tryAcquire(int permits, Duration maxWait);

    /**
     * Acquires {@code permits} permits, all or none, without blocking the calling thread.
     *
     * @return a future completed with the lease, or exceptionally with {@link LockTimeoutException} if they were not
     *         all obtained within {@code maxWait}, with {@link LockStoreException} if the store failed; cancelling it
     *         ends the wait and releases whatever it had taken
     * @throws NullPointerException     if {@code maxWait} is null
     * @throws IllegalArgumentException as {@link #acquire}
     * @throws IllegalStateException    if the client is closed
     */
    CompletableFuture<PermitLease> acquireAsync(int permits, Duration maxWait);

    /**
     * Releases the permit lease with that id, if this client holds it: from any thread, without the lease object.
     *
     * @param permitId a {@link PermitLease#id()} of this semaphore
     * @return true if it was held and is now released; false if this client holds no such lease: never acquired
     *         through this client, already released, or lost (expired). Nothing changes then.
     * @throws NullPointerException if {@code permitId} is null
     * @throws LockStoreException   if the store could not be reached; the lease is closed anyway and its permits
     *                              run out at their TTL
     */
    boolean release(String permitId);

    /**
     * Asks the store which permits are held now, one entry per held permit (its lock's holder, fencing token and
     * remaining lease), waiting at most {@code timeout} in all.
     *
     * @throws NullPointerException     if {@code timeout} is null
     * @throws IllegalArgumentException if {@code timeout} is not positive
     * @throws LockStoreException       if the store could not be asked within {@code timeout}
     */
    List<LockInfo> holders(Duration timeout);

    /**
     * This semaphore as a {@link DistributedLock} whose every acquire takes {@code permits} permits, all or none, as
     * one {@link PermitLease}: for what works with locks ({@code LockTemplate}, {@code ReactiveLocks.withLock}, Kotlin's
     * {@code withLock}, {@code @Locked}, {@link DistributedLock#asJavaLock()}). Its leases are never re-entered: a
     * thread that holds permits of this semaphore and asks for more than are left to it is refused at once
     * ({@link IllegalStateException}) instead of waiting for itself. {@link DistributedLock#isHeldByCurrentThread()}
     * says whether the calling thread holds permits of this semaphore from a blocking acquire;
     * {@link DistributedLock#inspect()} gives the first held permit.
     *
     * @param permits how many permits each acquire takes
     * @return the view; cheap, make one per use or keep it
     * @throws IllegalArgumentException if {@code permits} is not between 1 and {@link #permits()}
     */
    DistributedLock asLock(int permits);
}
