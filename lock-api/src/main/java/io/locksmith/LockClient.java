package io.locksmith;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The entry point: a connection to one lock store, chosen by a URI.
 * <pre>{@code
 * try (LockClient locks = LockClient.open("redis://127.0.0.1:6379")) {    // or LockClient.fromEnvironment()
 *     try (Lease lease = locks.lock("order:1001").acquire(Duration.ofSeconds(3))) {
 *         long token = lease.fencingToken();
 *         ...
 *     }
 * }
 * }</pre>
 *
 * <p>The URI's scheme picks the backend ({@code mem://}, {@code redis://}, {@code zookeeper://},
 * {@code etcd://}, ...), found with {@link java.util.ServiceLoader} through
 * {@link io.locksmith.spi.LockProviderFactory}. Parameters common to every store:
 * {@code lease} (default lease time, e.g. {@code 30s}), {@code renew} ({@code true}/{@code false}),
 * {@code maxHold} (e.g. {@code 10m}, or {@code none}). See {@code docs/CONFIGURATION.md}.
 *
 * <p>A client is thread-safe and meant to be shared: one per store per application. It uses one
 * background thread for renewals and deadlines, whatever the number of locks held, and no thread per
 * waiter. Closing it releases every lease it still holds.
 */
public interface LockClient extends AutoCloseable {

    /** The environment variable read by {@link #fromEnvironment()}. */
    String ENV_VARIABLE = "LOCKSMITH_URI";
    /** The system property read by {@link #fromEnvironment()}. */
    String SYSTEM_PROPERTY = "locksmith.uri";
    /** The classpath resource read by {@link #fromEnvironment()}, with the key {@code locksmith.uri}. */
    String PROPERTIES_RESOURCE = "locksmith.properties";

    /**
     * Opens a client on the store named by {@code uri}.
     *
     * @throws NullPointerException        if {@code uri} is null
     * @throws LockConfigurationException  if the URI is malformed, its scheme is unknown (the message lists
     *                                     the available ones) or a parameter is unknown or invalid
     * @throws LockStoreException          if the store cannot be reached
     */
    static LockClient open(String uri) {
        return builder().uri(uri).build();
    }

    /**
     * Opens a client from, in this order: the system property {@value #SYSTEM_PROPERTY}, the environment
     * variable {@value #ENV_VARIABLE}, the key {@code locksmith.uri} of the classpath resource
     * {@value #PROPERTIES_RESOURCE}.
     *
     * @throws LockConfigurationException if none of them is set (the message names all three), or as
     *                                     {@link #open(String)}
     */
    static LockClient fromEnvironment() {
        return open(EnvironmentUri.uriFromEnvironment());
    }

    /**
     * The store URI that {@link #fromEnvironment()} would open, from the first of its sources that sets it, in the
     * same order; for tools that take a URI of their own and fall back on these sources (lockctl's {@code --uri}).
     *
     * @return the URI, or empty if none of the sources sets it
     * @throws LockConfigurationException if the classpath resource {@value #PROPERTIES_RESOURCE} cannot be read
     */
    static java.util.Optional<String> environmentUri() {
        return EnvironmentUri.find();
    }

    /**
     * A builder for a client with a listener, a trace id source or default lock options. To give the client a
     * store factory of your own, see {@link io.locksmith.spi.ProviderClientBuilder}.
     *
     * @throws LockConfigurationException if locksmith-api's builder cannot be found by
     *                                     {@link java.util.ServiceLoader} (its jar is on the path twice, or
     *                                     repackaged without {@code META-INF/services})
     */
    static Builder builder() {
        return ClientBootstrap.newBuilder();
    }

    /**
     * The lock of that name with this client's default options.
     *
     * @throws NullPointerException     if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is empty, blank, longer than 512 characters or
     *                                  contains control characters
     * @throws IllegalStateException    if the client is closed
     */
    DistributedLock lock(String name);

    /**
     * The lock of that name with the given options.
     *
     * @throws NullPointerException     if {@code name} or {@code options} is null
     * @throws IllegalArgumentException as {@link #lock(String)}, or if the store cannot honour the lease time
     *                                  (etcd counts whole seconds, for example); the message says what it can
     * @throws IllegalStateException    if the client is closed
     */
    DistributedLock lock(String name, LockOptions options);

    /**
     * The semaphore of that name with {@code permits} permits, whose permit leases use this client's default options.
     * Every client must use the same number of permits for one name (see {@link DistributedSemaphore}).
     *
     * @throws NullPointerException     if {@code name} is null
     * @throws IllegalArgumentException as {@link #lock(String)}, if {@code name} is longer than 496 characters, or if
     *                                  {@code permits} is not between 1 and {@link DistributedSemaphore#MAX_PERMITS}
     * @throws IllegalStateException    if the client is closed
     */
    DistributedSemaphore semaphore(String name, int permits);

    /**
     * The semaphore of that name with {@code permits} permits, whose permit leases use {@code options}.
     *
     * @throws NullPointerException     if {@code name} or {@code options} is null
     * @throws IllegalArgumentException as {@link #semaphore(String, int)}, or if the store cannot honour the lease
     *                                  time
     * @throws IllegalStateException    if the client is closed
     */
    DistributedSemaphore semaphore(String name, int permits, LockOptions options);

    /**
     * The read-write lock of that name, admitting {@link DistributedReadWriteLock#DEFAULT_MAX_READERS} readers at once,
     * with this client's default options.
     *
     * @throws NullPointerException     if {@code name} is null
     * @throws IllegalArgumentException as {@link #lock(String)}, or if {@code name} is longer than 496 characters
     * @throws IllegalStateException    if the client is closed
     */
    DistributedReadWriteLock readWriteLock(String name);

    /**
     * The read-write lock of that name, admitting {@code maxReaders} readers at once, with the given options. Every
     * client must use the same {@code maxReaders} for one name.
     *
     * @throws NullPointerException     if {@code name} or {@code options} is null
     * @throws IllegalArgumentException as {@link #readWriteLock(String)}, if {@code maxReaders} is not between 1 and
     *                                  {@link DistributedSemaphore#MAX_PERMITS}, or if the store cannot honour the
     *                                  lease time
     * @throws IllegalStateException    if the client is closed
     */
    DistributedReadWriteLock readWriteLock(String name, LockOptions options, int maxReaders);

    /**
     * The leader election of that name; its terms are leases with this client's default lease time, renewed without a
     * maximum hold. Not joined until {@link LeaderElection#join()}.
     *
     * @throws NullPointerException     if {@code name} is null
     * @throws IllegalArgumentException as {@link #lock(String)}, or if {@code name} is longer than 496 characters
     * @throws IllegalStateException    if the client is closed
     */
    LeaderElection election(String name);

    /**
     * The leader election of that name, whose terms are leases with {@code options}' lease time and loss action,
     * renewed without a maximum hold if renewing (a fixed lease makes terms of a fixed length). The lease time is the
     * longest a crashed leader keeps the others waiting.
     *
     * @throws NullPointerException     if {@code name} or {@code options} is null
     * @throws IllegalArgumentException as {@link #election(String)}, or if the store cannot honour the lease time
     * @throws IllegalStateException    if the client is closed
     */
    LeaderElection election(String name, LockOptions options);

    /**
     * Asks the store who holds the named lock.
     *
     * @return the holder, or empty if the lock is free
     * @throws NullPointerException     if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is not a valid lock name
     */
    Optional<LockInfo> inspect(String name);

    /**
     * Asks the store who holds the named lock, waiting at most {@code timeout} for the answer, for a health or
     * readiness check that must answer in a time of its own whatever the store's command time-out is. If this
     * client knows the store to be unreachable (a call found its connection refused, and no call has succeeded
     * since), this method throws at once, without asking the store.
     *
     * @param name    the lock to inspect; nobody needs to hold it
     * @param timeout how long the store may take to answer
     * @return the holder, or empty if the lock is free
     * @throws NullPointerException      if {@code name} or {@code timeout} is null
     * @throws IllegalArgumentException  if {@code name} is not a valid lock name, or {@code timeout} is not
     *                                   positive
     * @throws LockStoreException        if the store is known to be unreachable, answered with an error, or did
     *                                   not answer within {@code timeout}
     * @throws LockInterruptedException  if the calling thread is interrupted while it waits (its interrupt flag
     *                                   is set again)
     * @throws IllegalStateException     if the client is closed
     */
    Optional<LockInfo> inspect(String name, Duration timeout);

    /**
     * Asks the store for every held lock whose name starts with {@code prefix}, with its holder and fencing
     * token, sorted by name. Not every store can list; {@code mem://}, Redis (single, Sentinel, RedLock),
     * ZooKeeper, etcd and PostgreSQL can. Reads only.
     *
     * @param prefix  the start of the names; the empty string lists every held lock
     * @param timeout how long the listing may take
     * @return the held locks, possibly none
     * @throws NullPointerException          if {@code prefix} or {@code timeout} is null
     * @throws IllegalArgumentException      if {@code timeout} is not positive
     * @throws UnsupportedOperationException if the store cannot list its locks
     * @throws LockStoreException            if the store could not be asked within {@code timeout}
     * @throws LockInterruptedException      if the calling thread is interrupted while it waits (its interrupt
     *                                       flag is set again)
     * @throws IllegalStateException         if the client is closed
     */
    List<LockInfo> list(String prefix, Duration timeout);

    /** This client's id, part of every {@link HolderIdentity} it creates. */
    String clientId();

    /** The store this client talks to, e.g. {@code redis://127.0.0.1:6379 (jedis)}, without credentials. */
    String describe();

    /** What the store behind this client supports beyond the required rules. */
    Set<Capability> capabilities();

    /** How many store locks this client holds now (re-entrant leases count once). */
    int heldCount();

    /**
     * The shortest lease time the store behind this client can honour: a lease time under it is refused when a lock
     * is made ({@link #lock(String, LockOptions)}). An adapter that takes lease times from elsewhere (ShedLock's
     * {@code lockAtMostFor}) raises shorter ones to it. Whole seconds on etcd, tens of milliseconds elsewhere.
     */
    java.time.Duration minimumLeaseTime();

    /**
     * Releases every lease this client still holds (their holders are told, with
     * {@link LossReason#CLIENT_CLOSED}), stops the renewal thread and closes the store connection.
     * Closing a closed client does nothing.
     */
    @Override
    void close();

    /**
     * Builds a {@link LockClient}. Not thread-safe. Backends and tests that pass their own store factory use
     * {@link io.locksmith.spi.ProviderClientBuilder}, the same builder seen through the SPI.
     */
    interface Builder {
        /**
         * The store URI.
         *
         * @throws NullPointerException if {@code uri} is null
         */
        Builder uri(String uri);

        /** Default options for {@link LockClient#lock(String)}; overrides the URI's {@code lease}/{@code renew}/{@code maxHold}. */
        Builder defaultLockOptions(LockOptions options);

        /** Adds a listener for lock events (metrics, logs). */
        Builder listener(LockListener listener);

        /**
         * Where trace ids come from. The default reads the SLF4J MDC keys {@code traceId}, {@code trace_id}
         * and {@code X-B3-TraceId}.
         */
        Builder traceIdSupplier(Supplier<String> traceIdSupplier);

        /** Sets the client id instead of a random UUID (it must be unique among live clients). */
        Builder clientId(String clientId);

        /**
         * How long a missing notification may delay a waiter at most: the cap of the backoff poll that backs
         * up notifications. Default 1 s; stores without notification use a 20 ms to 500 ms backoff.
         *
         * @throws IllegalArgumentException if not positive
         */
        Builder maxPollInterval(Duration interval);

        /**
         * Opens the client.
         *
         * @throws LockConfigurationException if no URI was given, or as {@link LockClient#open(String)}
         * @throws LockStoreException         if the store cannot be reached
         */
        LockClient build();
    }
}
