package io.locksmith;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * A named lock in a store, obtained from {@link LockClient#lock(String)}. Cheap to create; holds no
 * resources until acquired. Each acquire returns a {@link Lease}, which is closed to release.
 * <pre>{@code
 * DistributedLock lock = client.lock("order:1001");
 * try (Lease lease = lock.acquire(Duration.ofSeconds(3))) {
 *     ...
 * }
 * }</pre>
 *
 * <h2>Waiting</h2>
 * Every waiting acquire is bounded by its argument and interruptible. Where the store can notify of a
 * release (Redis pub/sub, ZooKeeper and etcd watches), a waiter wakes on the notification; a backoff poll
 * with jitter remains as a safety net, so a lost notification costs latency, never correctness. A wait
 * that ends without the lock, by time-out or interruption, leaves nothing behind in the store.
 *
 * <h2>Asynchronous acquires</h2>
 * {@link #acquireAsync} and {@link #tryAcquireAsync} return at once; the wait holds no thread: it is a
 * registration woken by the store's release notification or the client's timer, and each store request runs on one
 * of the client's threads. The future completes as the blocking method would return or throw. Cancelling it
 * ({@link CompletableFuture#cancel}) ends the wait and leaves nothing behind in the store; a lease granted at the
 * moment of the cancel is released. Leases from these methods are never re-entered by a thread (see {@link Lease}).
 * Dependent stages without an executor of their own run on the client's threads and must not block.
 *
 * <h2>Errors</h2>
 * All methods throw {@link LockStoreException} when the store cannot be reached, and
 * {@link IllegalStateException} when the client is closed. No method accepts null.
 */
public interface DistributedLock {

    /** The name of this lock. */
    String name();

    /** The options this lock's leases use. */
    LockOptions options();

    /**
     * Acquires the lock, waiting as long as it takes.
     *
     * @return the lease
     * @throws LockInterruptedException if the thread is interrupted while waiting (the interrupt flag is set
     *                                  again)
     */
    Lease acquire();

    /**
     * Acquires the lock, waiting at most {@code maxWait}.
     *
     * @return the lease
     * @throws LockTimeoutException      if the lock was not obtained within {@code maxWait}
     * @throws LockInterruptedException  if the thread is interrupted while waiting
     * @throws NullPointerException      if {@code maxWait} is null
     * @throws IllegalArgumentException  if {@code maxWait} is negative
     */
    Lease acquire(Duration maxWait);

    /**
     * Acquires the lock only if it is free now: one store attempt, no waiting.
     *
     * @return the lease, or empty if another holder has the lock
     */
    Optional<Lease> tryAcquire();

    /**
     * Acquires the lock, waiting at most {@code maxWait}.
     *
     * @return the lease, or empty if the lock was not obtained within {@code maxWait}
     * @throws LockInterruptedException  if the thread is interrupted while waiting
     * @throws NullPointerException      if {@code maxWait} is null
     * @throws IllegalArgumentException  if {@code maxWait} is negative
     */
    Optional<Lease> tryAcquire(Duration maxWait);

    /**
     * Acquires the lock without blocking the calling thread, waiting at most {@code maxWait}.
     *
     * @return a future completed with the lease, or exceptionally with {@link LockTimeoutException} if the lock was
     *         not obtained within {@code maxWait}, with {@link LockStoreException} if the store failed as the blocking
     *         {@link #acquire(Duration)} would throw it, or with {@link IllegalStateException} if the client was closed
     *         during the wait
     * @throws NullPointerException     if {@code maxWait} is null
     * @throws IllegalArgumentException if {@code maxWait} is negative
     * @throws IllegalStateException    if the client is closed
     */
    CompletableFuture<Lease> acquireAsync(Duration maxWait);

    /**
     * Acquires the lock without blocking the calling thread, waiting at most {@code maxWait}; a zero wait makes one
     * store attempt.
     *
     * @return a future completed with the lease, or with empty if the lock was not obtained within {@code maxWait};
     *         exceptionally as {@link #acquireAsync}
     * @throws NullPointerException     if {@code maxWait} is null
     * @throws IllegalArgumentException if {@code maxWait} is negative
     * @throws IllegalStateException    if the client is closed
     */
    CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration maxWait);

    /**
     * Whether the current thread holds a lease on this lock through this client that it would re-enter (a lease bound
     * to it: see {@link Lease}). A local check.
     */
    boolean isHeldByCurrentThread();

    /**
     * Asks the store who holds this lock now.
     *
     * @return the holder, or empty if the lock is free
     */
    Optional<LockInfo> inspect();

    /**
     * A {@link Lock} view for code that expects one. Its ownership is per thread, as {@code Lock} expects:
     * {@code unlock()} releases the lease the calling thread acquired last, and throws
     * {@link IllegalMonitorStateException} if it holds none. {@code newCondition()} is not supported.
     */
    Lock asJavaLock();
}
