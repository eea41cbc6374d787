package io.locksmith.shedlock;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A ShedLock {@code LockProvider} on any Locksmith store: replace your provider bean with this one and every
 * {@code @SchedulerLock} keeps working, on the store the client's URI names.
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(LockClient locks) {
 *     return new LocksmithLockProvider(locks);          // redis://, zookeeper://, etcd://, postgres://, ...
 * }
 * }</pre>
 *
 * <p>ShedLock's semantics, kept: a lock lasts {@code lockAtMostFor} unless unlocked (a fixed lease, not renewed); an
 * {@code unlock()} before {@code lockAtLeastFor} keeps the lock until {@code createdAt + lockAtLeastFor}
 * ({@link Lease#closeAfter}); a second {@code lock()} of a held name is empty, from the same thread too (not
 * re-entrant); {@code extend} works from any thread, and a lock that was unlocked or extended refuses further use with
 * {@code IllegalStateException}. Added: the lock's fencing token, which no ShedLock provider has
 * ({@link LocksmithSimpleLock#fencingToken()}, or {@link #currentFencingToken()} inside the job), holder identity in
 * {@code lockctl inspect}, and the store chosen by configuration.
 *
 * <p>Differences, stated: a {@code lockAtMostFor} under {@link #SHORTEST_STORE_LEASE} (or the store's shortest lease,
 * {@link LockClient#minimumLeaseTime()}, if longer: whole seconds on etcd) holds the store lock that long, though the
 * ShedLock lock counts as ended at {@code lockAtMostFor} (it can no longer be extended and is released when
 * unlocked); on stores whose locks live with the client's session (ZooKeeper, etcd) a lock kept for
 * {@code lockAtLeastFor} is released by this process at that time, so a process that ends before takes it with its
 * session, earlier. Lock names are prefixed with {@link #namePrefix()} (default none) and must be valid Locksmith names.
 *
 * <p>Thread-safe. The client is the caller's: this provider never closes it.
 */
public final class LocksmithLockProvider implements ExtensibleLockProvider {

    /**
     * The shortest store lease this provider asks for, whatever {@code lockAtMostFor} says. A grant is valid for its
     * lease counted from when the request was sent, and a lease shorter than the acquire's round trip is over before it
     * reaches the caller, which then refuses it: ShedLock would skip the job although nobody held the lock (a 20 ms
     * lease on ZooKeeper, whose acquire proves its session through the leader, was refused that way on a loaded
     * machine). One second leaves room for a slow round trip; a real {@code lockAtMostFor} is minutes.
     */
    public static final Duration SHORTEST_STORE_LEASE = Duration.ofSeconds(1);

    private static final ThreadLocal<LocksmithSimpleLock> CURRENT = new ThreadLocal<>();

    private final LockClient client;
    private final String namePrefix;

    /**
     * A provider whose lock names are ShedLock's names as they are.
     *
     * @throws NullPointerException if {@code client} is null
     */
    public LocksmithLockProvider(LockClient client) {
        this(client, "");
    }

    /**
     * A provider whose store lock names are {@code namePrefix + name}: several applications on one store keep apart.
     *
     * @throws NullPointerException if an argument is null
     */
    public LocksmithLockProvider(LockClient client, String namePrefix) {
        this.client = Objects.requireNonNull(client, "client cannot be null");
        this.namePrefix = Objects.requireNonNull(namePrefix, "namePrefix cannot be null");
    }

    /** What every store lock name of this provider starts with. */
    public String namePrefix() {
        return namePrefix;
    }

    /**
     * Takes the lock of {@code configuration} if nobody holds it: one store call, no waiting.
     *
     * @return the lock, or empty if another holder (this process included) has it
     * @throws IllegalArgumentException      if the name is not a valid Locksmith lock name, or {@code lockAtMostFor}
     *                                       is not positive or longer than {@link LockOptions#MAX_LEASE_TIME}
     * @throws io.locksmith.LockStoreException if the store did not answer within the client's call limit
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Objects.requireNonNull(configuration, "configuration cannot be null");
        String name = storeName(configuration.getName());
        Duration atMost = leaseTime(configuration, configuration.getLockAtMostFor());
        LockOptions options = LockOptions.builder().leaseTime(atMost).fixedLease().reentrant(false).build();
        Optional<SimpleLock> taken = client.lock(name, options).tryAcquire()
                .map(lease -> new LocksmithSimpleLock(configuration, lease, this));
        // ShedLock runs a job on the thread that locked: the job may ask for its token without the lock object.
        taken.ifPresent(lock -> CURRENT.set((LocksmithSimpleLock) lock));
        return taken;
    }

    /**
     * The fencing token of the lock this thread took last through a provider of this class and has not unlocked: for a
     * job run by ShedLock's executor, the token of its own lock.
     *
     * @throws IllegalStateException if this thread holds no such lock
     */
    public static long currentFencingToken() {
        LocksmithSimpleLock lock = CURRENT.get();
        if (lock == null) {
            throw new IllegalStateException("this thread holds no lock taken through LocksmithLockProvider");
        }
        return lock.fencingToken();
    }

    /** An extension from the thread that holds {@code old} moves that thread's binding to {@code extended}. */
    static void replaceOnItsThread(LocksmithSimpleLock old, LocksmithSimpleLock extended) {
        if (CURRENT.get() == old) {
            CURRENT.set(extended);
        }
    }

    static void unbindFromThread(LocksmithSimpleLock lock) {
        if (CURRENT.get() == lock) {
            CURRENT.remove();
        }
    }

    private String storeName(String shedLockName) {
        // Validated by the client when the lock is made: null, blank and over-long names are refused there.
        return namePrefix + Objects.requireNonNull(shedLockName, "lock name cannot be null");
    }

    /** A ShedLock duration as a lease time: at least {@link #shortestStoreLease()}. */
    Duration leaseTime(LockConfiguration configuration, Duration requested) {
        if (requested.isZero() || requested.isNegative() || requested.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("lockAtMostFor of lock '" + configuration.getName() + "' must be"
                    + " positive and at most " + LockOptions.MAX_LEASE_TIME + " (a lock must free itself within a"
                    + " bounded time after its holder dies), was " + requested);
        }
        Duration minimum = shortestStoreLease();
        return requested.compareTo(minimum) < 0 ? minimum : requested;
    }

    /** {@link #SHORTEST_STORE_LEASE}, or the store's shortest lease if longer. */
    Duration shortestStoreLease() {
        Duration storeMinimum = client.minimumLeaseTime();
        return storeMinimum.compareTo(SHORTEST_STORE_LEASE) > 0 ? storeMinimum : SHORTEST_STORE_LEASE;
    }

    static Duration until(Instant instant) {
        return Duration.between(ClockProvider.now(), instant);
    }

    @Override
    public String toString() {
        return "LocksmithLockProvider[" + client.describe() + (namePrefix.isEmpty() ? "" : ", prefix '" + namePrefix
                + "'") + "]";
    }
}
