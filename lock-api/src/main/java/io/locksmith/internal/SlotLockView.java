package io.locksmith.internal;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.LockTimeoutException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * A {@link DistributedLock} whose every acquire takes a fixed number of permits of a {@link SlotSemaphore} as one
 * {@link SlotLease}: the read and write locks of a read-write lock, and {@link io.locksmith.DistributedSemaphore#asLock}.
 * Its leases are never re-entered. A lease taken by a blocking acquire is bound to its thread, so that a thread that
 * would wait for permits it holds itself (a read-write lock's upgrade, more permits than are left to it) is refused at
 * once instead of waiting for itself.
 */
final class SlotLockView implements DistributedLock {

    /** The leases each thread got from blocking acquires, of every slot semaphore. */
    private static final ThreadLocal<List<SlotLease>> BOUND = ThreadLocal.withInitial(ArrayList::new);

    private final SlotSemaphore semaphore;
    private final int count;
    private final boolean exclusive;
    private final String what;
    private volatile Lock javaLock;

    /**
     * @param count     the permits each acquire takes
     * @param exclusive whether its leases are a read-write lock's write leases
     * @param what      what it is called in messages and {@link #toString()}
     */
    SlotLockView(SlotSemaphore semaphore, int count, boolean exclusive, String what) {
        if (count < 1 || count > semaphore.permits()) {
            throw new IllegalArgumentException("cannot take " + count + " permits of " + semaphore.kind() + " '"
                    + semaphore.name() + "', which has " + semaphore.permits());
        }
        this.semaphore = semaphore;
        this.count = count;
        this.exclusive = exclusive;
        this.what = what;
    }

    /** Records {@code lease} as held by the calling thread (a blocking acquire, or a downgrade on it). */
    static void bind(SlotLease lease) {
        BOUND.get().add(lease);
    }

    /** Whether {@code lease} is recorded as held by the calling thread. */
    static boolean boundHere(SlotLease lease) {
        return BOUND.get().contains(lease);
    }

    /** The open leases of {@code semaphore} bound to the calling thread. */
    static List<SlotLease> boundHere(SlotSemaphore semaphore) {
        List<SlotLease> mine = BOUND.get();
        mine.removeIf(lease -> lease.isClosed() || !lease.isBoundTo(Thread.currentThread()));
        List<SlotLease> ours = new ArrayList<>();
        for (SlotLease lease : mine) {
            if (sameSemaphore(lease.semaphore(), semaphore)) {
                ours.add(lease);
            }
        }
        return ours;
    }

    /** Whether two semaphore objects are the same store semaphore of one client. */
    static boolean sameSemaphore(SlotSemaphore one, SlotSemaphore other) {
        return one.client() == other.client() && one.name().equals(other.name()) && one.kind().equals(other.kind());
    }

    /**
     * Refuses at once an acquire that would wait for the calling thread's own permits: what it holds of the
     * semaphore and what it asks for are more than there are.
     */
    private void refuseSelfWait() {
        List<SlotLease> held = boundHere(semaphore);
        int heldPermits = held.stream().mapToInt(SlotLease::permits).sum();
        if (held.isEmpty() || heldPermits + count <= semaphore.permits()) {
            return;
        }
        SlotLease first = held.get(0);
        if (semaphore.kind().equals(DefaultReadWriteLock.KIND)) {
            if (exclusive && !first.isExclusive()) {
                throw new IllegalStateException("upgrade refused: this thread holds a read lease (token "
                        + first.fencingToken() + ") of read-write lock '" + semaphore.name() + "'; a writer waits for"
                        + " every reader to leave, so it would wait for itself. Close the read lease first.");
            }
            throw new IllegalStateException("this thread holds " + (first.isExclusive() ? "the write lease" : "read"
                    + " leases") + " (token " + first.fencingToken() + ") of read-write lock '" + semaphore.name()
                    + "'; it would wait for itself." + (first.isExclusive() ? " To read under it, use downgrade(lease)."
                    : ""));
        }
        throw new IllegalStateException("this thread holds " + heldPermits + " of the " + semaphore.permits()
                + " permits of " + semaphore.kind() + " '" + semaphore.name() + "' and asks for " + count + " more: it"
                + " would wait for itself. Release what it holds first.");
    }

    @Override
    public String name() {
        return semaphore.name();
    }

    @Override
    public LockOptions options() {
        return semaphore.options();
    }

    @Override
    public Lease acquire() {
        return acquire(Duration.ofNanos(Long.MAX_VALUE));
    }

    @Override
    public Lease acquire(Duration maxWait) {
        return tryAcquire(maxWait).orElseThrow(() -> new LockTimeoutException(semaphore.name(), maxWait));
    }

    @Override
    public Optional<Lease> tryAcquire() {
        return tryAcquire(Duration.ZERO);
    }

    @Override
    public Optional<Lease> tryAcquire(Duration maxWait) {
        refuseSelfWait();
        SlotLease lease = SlotSemaphore.awaitHolding(semaphore.start(count, maxWait, Thread.currentThread(), exclusive),
                semaphore.name());
        if (lease == null) {
            return Optional.empty();
        }
        bind(lease);
        return Optional.of(lease);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration maxWait) {
        refuseSelfWait();
        return SlotSemaphore.adapt(semaphore.start(count, maxWait, null, exclusive), lease -> lease, () -> {
            throw new LockTimeoutException(semaphore.name(), maxWait);
        });
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration maxWait) {
        refuseSelfWait();
        return SlotSemaphore.adapt(semaphore.start(count, maxWait, null, exclusive), Optional::of, Optional::empty);
    }

    /** Whether the calling thread holds a lease of this kind (read, write, or permits) from a blocking acquire. */
    @Override
    public boolean isHeldByCurrentThread() {
        return boundHere(semaphore).stream().anyMatch(lease -> lease.isExclusive() == exclusive);
    }

    /** The first held permit's holder, token and remaining lease, with the semaphore's name. */
    @Override
    public Optional<LockInfo> inspect() {
        List<LockInfo> holders = semaphore.holders(Duration.ofNanos(semaphore.client().commandTimeoutNanos));
        if (holders.isEmpty()) {
            return Optional.empty();
        }
        LockInfo first = holders.get(0);
        return Optional.of(new LockInfo(semaphore.name(), first.holder(), first.fencingToken(), first.remaining(),
                first.waiters()));
    }

    @Override
    public Lock asJavaLock() {
        Lock adapter = javaLock;
        if (adapter == null) {
            synchronized (this) {
                if (javaLock == null) {
                    javaLock = new JavaLockAdapter(this);
                }
                adapter = javaLock;
            }
        }
        return adapter;
    }

    @Override
    public String toString() {
        return what;
    }
}
