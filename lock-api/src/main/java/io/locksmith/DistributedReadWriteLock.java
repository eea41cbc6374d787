package io.locksmith;

/**
 * A read-write lock in a store: obtained from {@link LockClient#readWriteLock(String)}. Readers share it, a writer
 * holds it alone. Both views are {@link DistributedLock}s, so every way of acquiring a lock (bounded, try,
 * asynchronous, {@link DistributedLock#asJavaLock()}) works on either:
 * <pre>{@code
 * DistributedReadWriteLock prices = client.readWriteLock("prices");
 * try (Lease read = prices.readLock().acquire(Duration.ofSeconds(2))) {
 *     return cache.get(sku);                                      // many readers at once
 * }
 * try (Lease write = prices.writeLock().acquire(Duration.ofSeconds(5))) {
 *     store.update(sku, price, write.fencingToken());           // one writer, nobody reading
 * }
 * }</pre>
 *
 * <h2>Order</h2>
 * A writer that waits keeps new readers out, so readers cannot starve it: acquirers line up in one queue (in
 * arrival order where the store is {@link Capability#FAIR fair}), and the one at its head takes what it needs as it
 * becomes free. So a read-heavy load cannot postpone a write forever.
 *
 * <h2>Fencing</h2>
 * Every lease, read or write, gets a token from one sequence per name: strictly increasing (on stores that declare
 * {@link Capability#FENCING}). A write lease's token is greater than those of every read and write lease granted
 * before it, so a resource that records the highest token it saw rejects a write whose lease ran out before a later
 * reader or writer came in; and a reader can tell whether a writer came in after it (a greater token).
 *
 * <h2>Downgrade and upgrade</h2>
 * {@link #downgrade(Lease)} turns a write lease into a read lease with the same token, with no moment in which
 * another writer could come in. Upgrading is refused: a thread that holds a read lease of this lock through this
 * client and asks for the write lock gets an {@link IllegalStateException} at once (two readers that both waited
 * for the other to leave would deadlock). A thread that holds the write lease and asks for the read lock is told to
 * {@linkplain #downgrade downgrade} instead.
 *
 * <h2>How it is stored</h2>
 * As a {@link DistributedSemaphore} of {@link #maxReaders()} permits under the name {@code NAME#rw}: a reader holds
 * one permit, a writer all of them. A read-write lock is therefore exactly as safe as the store's locks, runs on
 * every store and on {@code migrate:}, and admits at most {@link #maxReaders()} readers at once (the next one
 * waits). Leases are never re-entered by a thread.
 */
public interface DistributedReadWriteLock {

    /** How many readers may hold the lock at once unless configured: {@value}. */
    int DEFAULT_MAX_READERS = 16;

    /** The name of this lock. */
    String name();

    /** How many readers may hold the lock at once. */
    int maxReaders();

    /** The shared view: its leases may be held by up to {@link #maxReaders()} holders at once, never beside a writer. */
    DistributedLock readLock();

    /**
     * The exclusive view: a lease of it is held by nobody else, reader or writer. Its acquire throws
     * {@link IllegalStateException} at once if the calling thread holds a read lease of this lock through this
     * client (an upgrade).
     */
    DistributedLock writeLock();

    /**
     * Turns a held write lease of this lock into a read lease with the same fencing token: the writer keeps one
     * reader's share and lets the rest go, so readers may come in but no writer can before the returned lease is
     * closed. {@code writeLease} is closed by this call.
     *
     * @return the read lease
     * @throws NullPointerException         if {@code writeLease} is null
     * @throws IllegalArgumentException     if {@code writeLease} is not a write lease of this lock from this client
     * @throws IllegalMonitorStateException if {@code writeLease} is closed
     * @throws LockLostException            if {@code writeLease} was lost
     */
    Lease downgrade(Lease writeLease);

    /**
     * Asks the store who holds this lock now, one entry per held reader's share (its holder, fencing token and
     * remaining lease), waiting at most {@code timeout} in all: a writer holds all {@link #maxReaders()} shares under
     * one token, each reader one share under its own.
     *
     * @throws NullPointerException     if {@code timeout} is null
     * @throws IllegalArgumentException if {@code timeout} is not positive
     * @throws LockStoreException       if the store could not be asked within {@code timeout}
     */
    java.util.List<LockInfo> holders(java.time.Duration timeout);
}
