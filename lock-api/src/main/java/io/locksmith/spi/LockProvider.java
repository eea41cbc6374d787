package io.locksmith.spi;

import io.locksmith.Capability;
import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The store-specific part of a lock: what a backend implements. Everything else (re-entry, waiting,
 * renewal scheduling, maximum hold, loss signalling, holder identity, validation, metrics) lives once in
 * the shared client; a provider does not repeat it.
 *
 * <h2>Implementation considerations</h2>
 * <ul>
 * <li>{@link #tryAcquire} is one atomic step: the lock, its TTL and its fencing token are set together or
 *     not at all. Losing the race is an empty result, not an exception.</li>
 * <li>{@link #renew} and {@link #release} compare the owner id in the store before they change anything.
 *     A holder whose lease ran out must never extend or delete its successor's lock.</li>
 * <li>Store failures are thrown as {@link LockStoreException} naming the store. The client treats a
 *     failed acquire as ambiguous and calls {@link #release} for it, so {@code release} must accept a
 *     grant with the owner of a request that may or may not have succeeded ({@link #releaseAmbiguous}).</li>
 * <li>A provider is used by many threads at once, and must be thread-safe.</li>
 * <li>A provider that declares {@link Capability#SESSION_BOUND} reports every lock its session loses
 *     through {@link ProviderContext#lossListener()}. Its store applies no TTL of its own ({@link #appliesTtl()}):
 *     the shared client releases a lock whose lease ran out, so the provider keeps no lease timer.</li>
 * </ul>
 * The TCK ({@code io.locksmith:locksmith-tck}) checks all of this against a live store.
 */
public interface LockProvider extends AutoCloseable {

    /**
     * Tries once to take the lock for {@code request.owner()} with a TTL of {@code request.ttl()}.
     *
     * @return the grant, or empty if another owner holds the lock (or is ahead in a fair queue)
     * @throws LockStoreException if the store could not be asked or did not answer
     */
    Optional<Grant> tryAcquire(AcquireRequest request);

    /**
     * Extends a held lock so the store keeps it for {@code ttl} from now, if it is still this owner's.
     *
     * @return true if extended; false if the store no longer has this owner's lock (it is lost)
     * @throws LockStoreException if the store could not be asked or did not answer (the outcome is unknown)
     */
    boolean renew(Grant grant, Duration ttl);

    /**
     * Renews many locks, in one store request where the provider declares {@link Capability#BATCH_RENEW}.
     * The default renews one by one.
     *
     * @return one result per request, in order, as {@link #renew}
     * @throws LockStoreException if the store could not be asked
     */
    default List<Boolean> renewAll(List<RenewRequest> requests) {
        List<Boolean> results = new ArrayList<>(requests.size());
        for (RenewRequest request : requests) {
            results.add(renew(request.grant(), request.ttl()));
        }
        return results;
    }

    /**
     * Releases a held lock if, and only if, it is still this owner's.
     *
     * @return true if this call removed the owner's lock; false if it was no longer the owner's
     * @throws LockStoreException if the store could not be asked or did not answer
     */
    boolean release(Grant grant);

    /**
     * Cleans up after an acquire whose outcome is unknown (the request may have reached the store before
     * the error): removes a lock or queue entry held by {@code owner} on {@code name}, if there is one.
     * The default releases a grant made of the name and owner, which suits providers whose release only
     * compares the owner id.
     *
     * @throws LockStoreException if the store could not be asked
     */
    default void releaseAmbiguous(String name, Owner owner) {
        release(new Grant(name, owner, -1, Duration.ZERO));
    }

    /**
     * Drops any waiting state a queueing provider kept for {@code owner} on {@code name} after
     * {@link AcquireRequest#willWait()} attempts: called when a wait ends without the lock (time-out,
     * interruption, error). Must leave nothing of the owner behind in the store. The default does nothing.
     *
     * <p>An attempt of the owner that outlived the caller's bound may still be at the store and put the owner's
     * entry back after this call: the shared client calls {@code cancel} again (or {@link #release} for a grant,
     * {@link #releaseAmbiguous} for a failure) once that attempt has ended, so a provider need not remember which
     * owners were cancelled.
     */
    default void cancel(String name, Owner owner) {
    }

    /**
     * Who holds the lock now.
     *
     * @return the holder, or empty if it is free
     * @throws LockStoreException if the store could not be asked
     */
    Optional<LockInfo> inspect(String name);

    /**
     * The locks held now whose names start with {@code prefix}, each with its holder, fencing token and, where
     * the store keeps them, remaining lease and waiters; sorted by name. Optional: what {@code lockctl inspect
     * --prefix} and {@link io.locksmith.LockClient#list} use, so that no tool has to know this store's key
     * layout. Reads only; a name released while the listing runs may be left out.
     *
     * @param prefix the start of the names; the empty string lists every held lock
     * @throws UnsupportedOperationException if this provider cannot list (the default)
     * @throws LockStoreException            if the store could not be asked
     */
    default List<LockInfo> list(String prefix) {
        throw new UnsupportedOperationException(describe() + " cannot list its locks");
    }

    /** What this provider supports beyond the required rules. */
    Set<Capability> capabilities();

    /**
     * The TTL the store will really apply for a requested one: etcd rounds up to whole seconds, for example.
     * The default honours any positive TTL.
     *
     * @throws IllegalArgumentException if the store cannot honour {@code requested}; the message says what it can
     */
    default Duration effectiveTtl(Duration requested) {
        return requested;
    }

    /**
     * Whether the store frees a lock on its own once its TTL has passed without a renewal, as Redis does with a key's
     * expiry. A session-bound store does not: a ZooKeeper ephemeral node lives as long as its session, and keys under
     * an etcd lease that the provider shares between locks and keeps alive live as long as that lease; a holder whose
     * lease ran out (a fixed lease, a renewing one past its maximum hold, renewals that failed until the deadline)
     * would keep the lock for as long as its process lives.
     *
     * <p>For a store that does not, the shared client enforces the TTL, and the provider keeps no lease timer of its
     * own: once the holder has been told of the loss, the client {@linkplain #release releases} the lock, owner-checked,
     * at the TTL the grant asked for (counted from before the request that confirmed it last), and sends that release
     * again, with a growing pause and each attempt bounded by {@link #commandTimeout()}, until the store answers it,
     * the provider reports the lock lost through {@link ProviderContext#lossListener()} (the store then frees it on
     * its own), or the client is closed. A provider of such a store must therefore accept the same release more than
     * once, and report a loss only when the store lets the lock go without the client (or the provider deletes it).
     *
     * <p>The default is true unless the provider declares {@link Capability#SESSION_BOUND}.
     */
    default boolean appliesTtl() {
        return !capabilities().contains(Capability.SESSION_BOUND);
    }

    /**
     * The shortest lease this store can honour through this provider: enough for the acquire's round trips plus
     * the client's drift allowance (1% of the lease plus 2 ms). The shared client refuses a shorter lease time
     * when the lock is configured, before any store call. The default, 20 ms, suits a store on the same network;
     * a provider whose requests take longer (several round trips, a consensus write) states more.
     */
    default Duration minimumTtl() {
        return Duration.ofMillis(20);
    }

    /**
     * How long one store request may take before it counts as failed: the store's command time-out, set by a
     * URI parameter where the store has one. The shared client waits at most this long for a provider call that
     * has no shorter bound ({@code tryAcquire()}, {@code inspect}, a release), and abandons it after that. The
     * default is 5 seconds.
     */
    default Duration commandTimeout() {
        return Duration.ofSeconds(5);
    }

    /**
     * The longest one call of this provider can keep its calling thread, whatever the store does (silent, dead,
     * slow to answer), because the provider's transport ends every wait inside the call on its own: the wait for
     * a pooled connection, the connect, every read. Empty if the provider cannot promise that, for example a
     * store client that retries on its own past its command time-out. The default is empty.
     *
     * <p>The shared client runs a provider call on another thread and stops waiting for it at the caller's bound,
     * since a blocking store client can outlive any bound; that hand-off costs a thread wake-up on every call.
     * When this limit fits in the caller's remaining bound, the client calls the provider on the caller's own
     * thread instead: the bound holds because the call cannot last longer. A caller interrupted during such a
     * call sees the interrupt when the call returns. A provider that states a limit it does not keep breaks the
     * time-bound rules (SPEC R7.7, R8.10).
     */
    default Optional<Duration> callTimeLimit() {
        return Optional.empty();
    }

    /** What {@link #maxConcurrentCalls()} answers unless a provider states its own. */
    int DEFAULT_MAX_CONCURRENT_CALLS = 64;

    /**
     * How many calls of this provider the shared client lets be in flight at once: acquire attempts, releases,
     * cancels, inspects and listings, the calls it abandoned at their caller's bound until they end. Callers past this
     * number wait for their turn in arrival order, within their own bound, so that a client with thousands of
     * waiting or releasing threads never makes the store refuse its traffic ({@code too many requests}) or runs its
     * own connection pool dry. The renewal batch, one at a time per client, comes on top. A URI's {@code maxInFlight}
     * parameter overrides it for one client.
     *
     * <p>A provider whose calls each hold a pooled connection states the pool's size less one, which leaves a
     * connection for the renewal batch. The default is {@value #DEFAULT_MAX_CONCURRENT_CALLS}.
     *
     * @return at least 1
     */
    default int maxConcurrentCalls() {
        return DEFAULT_MAX_CONCURRENT_CALLS;
    }

    /**
     * Calls {@code onChange} whenever the lock {@code name} may have become free, until the returned
     * handle is closed. Only called when {@link Capability#RELEASE_NOTIFICATION} is declared. For a queueing
     * provider, a change of the caller's predecessor counts, and a release that no waiter queued for (every waiting
     * attempt keeps a place in the provider's queue, before the shared client subscribes) need not be told. The
     * callback must be fast; it is called from the provider's own thread.
     *
     * <p>"May have become free" covers every way a lock ends: a release by any client, and the expiry of its TTL in
     * the store. A provider whose store announces a release but not an expiry (Redis publishes nothing when a key's
     * TTL runs out, unless keyspace notifications are configured) must time the expiry itself: while a subscription
     * lasts, read the lock's remaining TTL and call back once it has run out, reading again after every call back,
     * since a renewal or a new holder moves the expiry. Without that, a waiter learns of a crashed holder's expiry
     * only at its next poll (SPEC R7.4, R7.8). Each subscription is called on its own and ends only when its own
     * handle is closed, whatever other subscriptions to the name do (R7.10).
     *
     * @throws UnsupportedOperationException if the provider cannot notify
     */
    default AutoCloseable subscribe(String name, Runnable onChange) {
        throw new UnsupportedOperationException(describe() + " cannot notify of releases");
    }

    /**
     * The store's key-value records for client coordination features (the migration phase guard), if the
     * provider offers them. The default offers none.
     */
    default Optional<Registry> registry() {
        return Optional.empty();
    }

    /** The store, for messages: scheme, hosts and transport, never credentials. */
    String describe();

    /** Closes connections and background work. Locks still held are left to their TTL. */
    @Override
    void close();
}
