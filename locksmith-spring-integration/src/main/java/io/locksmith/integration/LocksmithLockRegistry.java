package io.locksmith.integration;

import io.locksmith.LockClient;
import io.locksmith.LockLostException;
import io.locksmith.LockOptions;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Spring Integration {@link org.springframework.integration.support.locks.LockRegistry} on any Locksmith store:
 * replace a {@code RedisLockRegistry}, {@code JdbcLockRegistry} or {@code ZookeeperLockRegistry} bean with this one
 * and keep every {@code obtain(key)}, {@code executeLocked} and {@code LockRegistryLeaderInitiator}; the store is the
 * {@link LockClient}'s, chosen by its URI.
 * <pre>{@code
 * @Bean
 * LocksmithLockRegistry lockRegistry(LockClient client) {
 *     return new LocksmithLockRegistry(client, "orders");         // lock names "orders:<key>"
 * }
 *
 * Lock lock = registry.obtain("order-1001");
 * lock.lock();
 * try {
 *     long token = ((LocksmithRegistryLock) lock).fencingToken();   // hand it to the resource you write
 *     ...
 * } finally {
 *     lock.unlock();
 * }
 * }</pre>
 *
 * <h2>Keys and locks</h2>
 * A key is a non-blank {@code String}; its Locksmith lock name is {@code registryKey + ":" + key} (the key alone when
 * the registry key is empty), within the client's name limits. {@link #obtain} returns the same
 * {@link LocksmithRegistryLock} for a key while it is cached: the registry keeps at most
 * {@linkplain #setCacheCapacity(int) 256} locks, evicting the least recently used that no thread of this process
 * holds, and {@link #expireUnusedOlderThan(long)} evicts unused ones. A lock is owned by the thread that locked it
 * (see {@link LocksmithRegistryLock}).
 *
 * <h2>Lease time and renewal</h2>
 * Without an {@code expireAfter} the registry's locks take the client's lease: renewed by the client while held,
 * bounded by its maximum hold (see {@link LockOptions}). With one, they take a fixed lease of that time, as Spring
 * Integration's registries do: the store frees the lock after that long unless the owner renews it
 * ({@link #renewLock(Object)}) or re-enters it. {@link DistributedLock#lock(Duration)} and
 * {@link DistributedLock#tryLock(Duration, Duration)} take a fixed lease of the time given. Renewal has one owner,
 * the client: a {@linkplain #setRenewalTaskScheduler renewal scheduler} is not used (a registry without
 * {@code expireAfter} already renews).
 *
 * <h2>Errors</h2>
 * Store failures are {@link io.locksmith.LockStoreException}s, a lost lease a {@link LockLostException}, both naming
 * the lock; every call is bounded by the client's call limit. This class is thread-safe.
 */
public final class LocksmithLockRegistry implements ExpirableLockRegistry<DistributedLock>,
        RenewableLockRegistry<DistributedLock> {

    /** How many locks the registry keeps by default, as Spring Integration's registries. */
    public static final int DEFAULT_CACHE_CAPACITY = 256;

    private final LockClient client;
    private final String registryKey;
    private final Duration expireAfter;
    private final LockOptions options;
    private final Map<String, LocksmithRegistryLock> locks = new HashMap<>();
    private int cacheCapacity = DEFAULT_CACHE_CAPACITY;
    private final AtomicLong uses = new AtomicLong();

    /**
     * A registry whose lock names are the keys themselves and whose locks take the client's renewing lease.
     *
     * @throws NullPointerException if {@code client} is null
     */
    public LocksmithLockRegistry(LockClient client) {
        this(client, "", null);
    }

    /**
     * A registry whose lock names are {@code registryKey + ":" + key} and whose locks take the client's renewing
     * lease.
     *
     * @throws NullPointerException if an argument is null
     */
    public LocksmithLockRegistry(LockClient client, String registryKey) {
        this(client, registryKey, null);
    }

    /**
     * A registry whose lock names are {@code registryKey + ":" + key} (the key alone for an empty registry key) and
     * whose locks take a fixed lease of {@code expireAfter} unless renewed, as Spring Integration's registries.
     *
     * @param expireAfter the lease time of {@link DistributedLock#lock()} and the {@code tryLock} methods without a
     *                    time-to-live, and of {@link #renewLock(Object)}; null for the client's renewing lease
     * @throws NullPointerException     if {@code client} or {@code registryKey} is null
     * @throws IllegalArgumentException if {@code expireAfter} is zero, negative, longer than
     *                                  {@link LockOptions#MAX_LEASE_TIME} or shorter than the store's
     *                                  {@linkplain LockClient#minimumLeaseTime() minimum lease}, or if
     *                                  {@code registryKey} is blank but not empty
     */
    public LocksmithLockRegistry(LockClient client, String registryKey, Duration expireAfter) {
        this.client = Objects.requireNonNull(client, "client cannot be null");
        this.registryKey = Objects.requireNonNull(registryKey, "registryKey cannot be null");
        if (!registryKey.isEmpty() && registryKey.isBlank()) {
            throw new IllegalArgumentException("registryKey is blank: give a prefix or an empty string for none");
        }
        LockOptions clientDefaults = client.lock(registryKey.isEmpty() ? "locksmith-registry" : registryKey).options();
        // Re-entry is the registry lock's, by thread; the client must make every other acquire wait.
        LockOptions.Builder builder = clientDefaults.toBuilder().reentrant(false);
        if (expireAfter != null) {
            if (expireAfter.compareTo(client.minimumLeaseTime()) < 0) {
                throw new IllegalArgumentException("expireAfter " + expireAfter + " is shorter than the shortest lease "
                        + client.describe() + " can keep (" + client.minimumLeaseTime() + ")");
            }
            builder.fixedLease().leaseTime(expireAfter);
        }
        this.expireAfter = expireAfter;
        this.options = builder.build();
    }

    /**
     * The lock of {@code lockKey}, the same object while it stays cached.
     *
     * @param lockKey a non-blank {@code String}
     * @throws NullPointerException     if {@code lockKey} is null
     * @throws IllegalArgumentException if {@code lockKey} is not a {@code String}, is blank, or makes a lock name the
     *                                  client refuses (too long, say)
     */
    @Override
    public LocksmithRegistryLock obtain(Object lockKey) {
        String name = nameOf(lockKey);
        synchronized (locks) {
            LocksmithRegistryLock lock = locks.get(name);
            if (lock == null) {
                lock = new LocksmithRegistryLock(this, client, name, options);
                locks.put(name, lock);
                evictOverCapacity();
            }
            lock.touch();
            return lock;
        }
    }

    /**
     * Forgets the cached locks that no thread of this process holds and that were last obtained, locked or unlocked
     * more than {@code age} milliseconds ago. Their keys are not touched in the store.
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long cutoff = System.currentTimeMillis() - age;
        synchronized (locks) {
            locks.values().removeIf(lock -> !lock.isAcquiredInThisProcess() && lock.lastUsedMillis() < cutoff);
        }
    }

    /**
     * Renews the calling thread's lease of {@code lockKey}: a fixed lease gets its time again (the registry's
     * {@code expireAfter}, or the time-to-live it was locked with) counted from now; a renewing lease is checked to be
     * still held.
     *
     * @throws NullPointerException     if {@code lockKey} is null
     * @throws IllegalArgumentException if {@code lockKey} is not a non-blank {@code String}
     * @throws IllegalStateException    if the calling thread does not hold the lock
     * @throws LockLostException        if the lease is no longer held
     * @throws io.locksmith.LockStoreException if the store did not answer within the client's call limit
     */
    @Override
    public void renewLock(Object lockKey) {
        heldLock(lockKey).renew(null);
    }

    /**
     * Sets the calling thread's fixed lease of {@code lockKey} to {@code ttl} from now.
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code lockKey} is not a non-blank {@code String}, or {@code ttl} is zero,
     *                                  negative, longer than {@link LockOptions#MAX_LEASE_TIME} or shorter than the
     *                                  store can keep
     * @throws IllegalStateException    if the calling thread does not hold the lock, or its lease renews itself
     * @throws LockLostException        if the lease is no longer held
     * @throws io.locksmith.LockStoreException if the store did not answer within the client's call limit
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        Objects.requireNonNull(ttl, "ttl cannot be null");
        heldLock(lockKey).renew(ttl);
    }

    /**
     * Not used: the Locksmith client renews the leases that renew themselves, and a fixed lease is renewed by its
     * owner ({@link #renewLock}). Accepted so that configuration written for Spring Integration's registries works.
     *
     * @throws NullPointerException if {@code renewalTaskScheduler} is null
     */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
        Objects.requireNonNull(renewalTaskScheduler, "renewalTaskScheduler cannot be null");
    }

    /**
     * Sets how many locks the registry keeps; beyond it the least recently used locks no thread of this process holds
     * are forgotten.
     *
     * @throws IllegalArgumentException if {@code cacheCapacity} is below 1
     */
    public void setCacheCapacity(int cacheCapacity) {
        if (cacheCapacity < 1) {
            throw new IllegalArgumentException("cacheCapacity must be at least 1, was " + cacheCapacity);
        }
        synchronized (locks) {
            this.cacheCapacity = cacheCapacity;
            evictOverCapacity();
        }
    }

    /** The registry key, the prefix of its lock names ({@code ""} for none). */
    public String registryKey() {
        return registryKey;
    }

    /** The fixed lease time of the registry's locks, or empty when they take the client's renewing lease. */
    public Optional<Duration> expireAfter() {
        return Optional.ofNullable(expireAfter);
    }

    /** The client the registry's locks are taken through. */
    public LockClient client() {
        return client;
    }

    /** The next value of the use counter that orders the cache's least recently used locks. */
    long nextUse() {
        return uses.incrementAndGet();
    }

    private LocksmithRegistryLock heldLock(Object lockKey) {
        String name = nameOf(lockKey);
        LocksmithRegistryLock lock;
        synchronized (locks) {
            lock = locks.get(name);
        }
        if (lock == null) {
            throw new IllegalStateException("Could not renew lock '" + name + "': it is not held by this thread");
        }
        return lock;
    }

    private String nameOf(Object lockKey) {
        Objects.requireNonNull(lockKey, "lockKey cannot be null");
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lockKey must be a String, was a " + lockKey.getClass().getName());
        }
        if (key.isBlank()) {
            throw new IllegalArgumentException("lockKey is blank");
        }
        return registryKey.isEmpty() ? key : registryKey + ":" + key;
    }

    private void evictOverCapacity() {
        int excess = locks.size() - cacheCapacity;
        if (excess <= 0) {
            return;
        }
        locks.values().stream()
                .filter(lock -> !lock.isAcquiredInThisProcess())
                .sorted(Comparator.comparingLong(LocksmithRegistryLock::lastUse))
                .limit(excess)
                .toList()
                .forEach(lock -> locks.remove(lock.name()));
    }

    @Override
    public String toString() {
        return "LocksmithLockRegistry[" + (registryKey.isEmpty() ? "" : registryKey + ":*, ")
                + (expireAfter == null ? "renewing leases" : "fixed leases of " + expireAfter) + ", "
                + client.describe() + "]";
    }
}
