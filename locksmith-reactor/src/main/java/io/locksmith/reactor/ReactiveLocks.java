package io.locksmith.reactor;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockStoreException;
import io.locksmith.LockTimeoutException;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Distributed locks in Reactor pipelines, over {@link DistributedLock#acquireAsync}: no thread is held while a
 * subscription waits for a lock.
 * <pre>{@code
 * DistributedLock lock = locks.lock("stock:" + sku);
 * Mono<Receipt> receipt = ReactiveLocks.withLock(lock, Duration.ofSeconds(3),
 *         lease -> stock.deduct(sku, quantity, lease.fencingToken()));   // held until that Mono ends
 * }</pre>
 *
 * <h2>Subscribing acquires</h2>
 * Every publisher returned here is cold: nothing happens until it is subscribed, and each subscription acquires the
 * lock anew. {@link #withLock withLock} and {@link #withLockMany withLockMany} hold the lock for the lifetime of the
 * publisher that their function builds, as {@link Mono#usingWhen} does for a resource: the function is called once
 * the lease is granted, never before, and the lease is released when that publisher completes, fails, or its
 * subscription is cancelled. A {@code Mono} from {@code withLock} emits its value after the release is done.
 *
 * <h2>Cancellation</h2>
 * Cancelling a subscription that is still waiting cancels the wait: nothing is left behind in the store, and a lease
 * granted at the moment of the cancel is released. Cancelling it while the work runs cancels the work and releases
 * the lease.
 *
 * <h2>Failures</h2>
 * A lock that is not obtained is an error signal, as the blocking API throws it:
 * {@link LockTimeoutException} (busy for the whole wait), {@link LockStoreException} (the store failed), or
 * {@link IllegalStateException} (the client was closed). The work is not run then. If the release fails after the
 * work failed, the release failure is added to the work's error as suppressed; after completion or cancellation it is
 * logged (the lock then runs out at its lease time) rather than failing finished work.
 *
 * <h2>Threads</h2>
 * The lease is emitted on the thread that completed the acquire (one of the lock client's threads when the lock had
 * to be waited for), and the work starts there, as with any asynchronous source: it must not block. Move blocking
 * work to a scheduler ({@code subscribeOn}/{@code publishOn}), or the client's threads stall.
 *
 * <h2>Re-entry and the fencing token</h2>
 * Leases acquired here are never re-entered (see {@link Lease}): a nested {@code withLock} on the same lock inside the
 * work waits for the outer one to end, that is, until its own {@code maxWait} runs out. Give the resource the
 * lease's {@link Lease#fencingToken() fencing token}: the function receives the lease, and anything inside the work
 * can read it with {@link #currentLease()}.
 *
 * <p>No method accepts null arguments.
 */
public final class ReactiveLocks {

    private static final Logger LOG = LoggerFactory.getLogger(ReactiveLocks.class);

    /** The Reactor context key under which {@link #withLock} puts the lease for {@link #currentLease()}. */
    private static final Object LEASE_KEY = new Object() {
        @Override
        public String toString() {
            return "io.locksmith.reactor.Lease";
        }
    };

    private ReactiveLocks() {
    }

    /**
     * A lease on {@code lock}, acquired when the returned {@code Mono} is subscribed, waiting at most
     * {@code maxWait}. The subscriber owns the lease and must close it ({@link #release(Lease)} or
     * {@link Lease#closeAsync()}); {@link #withLock} does that itself.
     *
     * @return a {@code Mono} emitting the lease, or failing with {@link LockTimeoutException} if the lock was not
     *         obtained within {@code maxWait}, with {@link LockStoreException} if the store failed, or with
     *         {@link IllegalStateException} if the client is closed
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code maxWait} is negative
     */
    public static Mono<Lease> acquire(DistributedLock lock, Duration maxWait) {
        checkArguments(lock, maxWait);
        // A lease granted when the subscription is already cancelled is discarded by the source, not lost.
        return Mono.fromFuture(() -> lock.acquireAsync(maxWait), false)
                .doOnDiscard(Lease.class, ReactiveLocks::releaseDiscarded);
    }

    /**
     * As {@link #acquire}, but a lock that stays busy for the whole wait completes the {@code Mono} empty instead of
     * failing; a zero {@code maxWait} makes one attempt.
     *
     * @return a {@code Mono} emitting the lease, or empty if the lock was not obtained within {@code maxWait}; it
     *         fails as {@link #acquire}'s for a store error or a closed client
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code maxWait} is negative
     */
    public static Mono<Lease> tryAcquire(DistributedLock lock, Duration maxWait) {
        checkArguments(lock, maxWait);
        return Mono.fromFuture(() -> lock.tryAcquireAsync(maxWait), false)
                .<Lease>mapNotNull(lease -> lease.orElse(null))
                .doOnDiscard(Object.class, ReactiveLocks::releaseDiscarded);
    }

    /**
     * Holds {@code lock} for the lifetime of the {@code Mono} that {@code work} builds: acquires it on subscription
     * (waiting at most {@code maxWait}), then calls {@code work} with the lease and subscribes to its result, and
     * releases the lease when that completes, fails or is cancelled.
     *
     * @return a {@code Mono} with the work's value, emitted once the lease is released; it fails as {@link #acquire}'s
     *         if the lock was not obtained (the work does not run), or with the work's error
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code maxWait} is negative
     */
    public static <T> Mono<T> withLock(DistributedLock lock, Duration maxWait,
                                       Function<? super Lease, ? extends Mono<? extends T>> work) {
        Mono<Lease> acquire = acquire(lock, maxWait);
        Objects.requireNonNull(work, "work cannot be null");
        return Mono.usingWhen(acquire,
                lease -> Objects.<Mono<? extends T>>requireNonNull(work.apply(lease), "work returned null")
                        .contextWrite(context -> context.put(LEASE_KEY, lease)),
                ReactiveLocks::releaseAfterCompletion, ReactiveLocks::releaseAfterError,
                ReactiveLocks::releaseAfterCancel);
    }

    /**
     * Holds {@code lock} for the lifetime of the publisher that {@code work} builds, as {@link #withLock} does for a
     * {@code Mono}: every element is emitted while the lock is held, and the lease is released when the publisher
     * completes, fails or is cancelled.
     *
     * @return a {@code Flux} of the work's elements, completing once the lease is released; it fails as
     *         {@link #acquire}'s if the lock was not obtained (the work does not run), or with the work's error
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code maxWait} is negative
     */
    public static <T> Flux<T> withLockMany(DistributedLock lock, Duration maxWait,
                                           Function<? super Lease, ? extends Publisher<? extends T>> work) {
        Mono<Lease> acquire = acquire(lock, maxWait);
        Objects.requireNonNull(work, "work cannot be null");
        return Flux.usingWhen(acquire,
                lease -> Flux.<T>from(Objects.requireNonNull(work.apply(lease), "work returned null"))
                        .contextWrite(context -> context.put(LEASE_KEY, lease)),
                ReactiveLocks::releaseAfterCompletion, ReactiveLocks::releaseAfterError,
                ReactiveLocks::releaseAfterCancel);
    }

    /**
     * The lease of the innermost {@link #withLock}/{@link #withLockMany} around the subscriber that reads it, from the
     * Reactor context: {@code ReactiveLocks.currentLease().flatMap(lease -> write(row, lease.fencingToken()))}.
     *
     * @return a {@code Mono} emitting the lease, or failing with {@link IllegalStateException} outside such work
     */
    public static Mono<Lease> currentLease() {
        return Mono.deferContextual(context -> context.<Lease>getOrEmpty(LEASE_KEY).map(Mono::just)
                .orElseGet(() -> Mono.error(new IllegalStateException("no lease here: ReactiveLocks.currentLease()"
                        + " works inside the publisher built by ReactiveLocks.withLock or withLockMany"))));
    }

    /**
     * Releases {@code lease} when subscribed ({@link Lease#closeAsync()}), for a lease from {@link #acquire}.
     *
     * @return a {@code Mono} completing when the store has answered, or failing with {@link LockStoreException} if it
     *         could not be reached (the lock then runs out at its lease time)
     * @throws NullPointerException if {@code lease} is null
     */
    public static Mono<Void> release(Lease lease) {
        Objects.requireNonNull(lease, "lease cannot be null");
        // The lease is closed as soon as closeAsync returns; cancelling the wait for the store's answer changes nothing.
        return Mono.fromFuture(lease::closeAsync, true);
    }

    private static Mono<Void> releaseAfterCompletion(Lease lease) {
        return release(lease).onErrorResume(failure -> {
            LOG.warn("lock '{}' could not be released after the work completed; it expires at its lease time",
                    lease.lockName(), failure);
            return Mono.empty();
        });
    }

    private static Mono<Void> releaseAfterError(Lease lease, Throwable workFailure) {
        return release(lease).onErrorResume(failure -> {
            workFailure.addSuppressed(failure);
            return Mono.empty();
        });
    }

    private static Mono<Void> releaseAfterCancel(Lease lease) {
        return release(lease).onErrorResume(failure -> {
            LOG.warn("lock '{}' could not be released after the subscription was cancelled; it expires at its lease"
                    + " time", lease.lockName(), failure);
            return Mono.empty();
        });
    }

    /** A lease (or an Optional of one) that a cancelled subscription will never see. */
    private static void releaseDiscarded(Object discarded) {
        Object lease = discarded instanceof Optional<?> optional ? optional.orElse(null) : discarded;
        if (lease instanceof Lease unwanted) {
            unwanted.closeAsync().whenComplete((ignored, failure) -> {
                if (failure != null) {
                    LOG.warn("lock '{}', granted after its subscriber had cancelled, could not be released; it expires"
                            + " at its lease time", unwanted.lockName(), failure);
                }
            });
        }
    }

    private static void checkArguments(DistributedLock lock, Duration maxWait) {
        Objects.requireNonNull(lock, "lock cannot be null");
        Objects.requireNonNull(maxWait, "maxWait cannot be null");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, was " + maxWait + " [lock '"
                    + lock.name() + "']");
        }
    }
}
