package io.locksmith.internal;

import io.locksmith.DistributedLock;
import io.locksmith.DistributedReadWriteLock;
import io.locksmith.Lease;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.LockTimeoutException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * A read-write lock as a {@link SlotSemaphore} of {@code maxReaders} permits under {@code NAME#rw}: a reader takes
 * one permit, a writer every one. The semaphore's gate makes a waiting writer keep new readers out, and its token
 * orders readers and writers in one sequence.
 */
final class DefaultReadWriteLock implements DistributedReadWriteLock {

    /** The leases each thread got from blocking acquires, to refuse an upgrade (and a read under a write) at once. */
    private static final ThreadLocal<List<SlotLease>> BOUND = ThreadLocal.withInitial(ArrayList::new);

    private final SlotSemaphore semaphore;
    private final View readView = new View(false);
    private final View writeView = new View(true);

    DefaultReadWriteLock(DefaultLockClient client, String name, LockOptions options, int maxReaders) {
        if (maxReaders < 1 || maxReaders > io.locksmith.DistributedSemaphore.MAX_PERMITS) {
            throw new IllegalArgumentException("read-write lock '" + name + "' must admit between 1 and "
                    + io.locksmith.DistributedSemaphore.MAX_PERMITS + " readers, was " + maxReaders);
        }
        this.semaphore = new SlotSemaphore(client, name, maxReaders, options, "read-write lock", "#rw");
    }

    @Override
    public String name() {
        return semaphore.name();
    }

    @Override
    public int maxReaders() {
        return semaphore.permits();
    }

    @Override
    public DistributedLock readLock() {
        return readView;
    }

    @Override
    public DistributedLock writeLock() {
        return writeView;
    }

    @Override
    public Lease downgrade(Lease writeLease) {
        Objects.requireNonNull(writeLease, "writeLease cannot be null");
        if (!(writeLease instanceof SlotLease write) || !isOurs(write) || !write.isExclusive()) {
            throw new IllegalArgumentException("not a write lease of read-write lock '" + name() + "' from this client: "
                    + writeLease);
        }
        write.ensureHeld();
        Lease kept = write.permitLeases().get(0);
        boolean boundHere = BOUND.get().contains(write);
        SlotLease read = new SlotLease(semaphore, List.of(kept), write.fencingToken(),
                boundHere ? Thread.currentThread() : null, false);
        if (!write.closeKeeping(kept)) {
            read.closeAsync();
            throw new IllegalMonitorStateException("write lease of read-write lock '" + name() + "' (token "
                    + write.fencingToken() + ") was closed while it was being downgraded");
        }
        if (boundHere) {
            bind(read);
        }
        return read;
    }

    private boolean isOurs(SlotLease lease) {
        SlotSemaphore other = lease.semaphore();
        return other.client() == semaphore.client() && other.name().equals(semaphore.name())
                && other.kind().equals(semaphore.kind());
    }

    /** The open leases of this lock bound to the current thread, writes or reads. */
    private Optional<SlotLease> boundHere(boolean write) {
        List<SlotLease> mine = BOUND.get();
        mine.removeIf(lease -> lease.isClosed() || !lease.isBoundTo(Thread.currentThread()));
        return mine.stream().filter(this::isOurs).filter(lease -> lease.isExclusive() == write).findFirst();
    }

    private static void bind(SlotLease lease) {
        BOUND.get().add(lease);
    }

    /** The read or the write view. */
    private final class View implements DistributedLock {
        private final boolean write;
        private volatile Lock javaLock;

        View(boolean write) {
            this.write = write;
        }

        private int count() {
            return write ? semaphore.permits() : 1;
        }

        private String what() {
            return (write ? "write" : "read") + " lock of read-write lock '" + semaphore.name() + "'";
        }

        /** Refuses at once what would wait for the calling thread's own lease. */
        private void refuseSelfWait() {
            if (write) {
                boundHere(false).ifPresent(read -> {
                    throw new IllegalStateException("upgrade refused: this thread holds a read lease (token "
                            + read.fencingToken() + ") of read-write lock '" + semaphore.name()
                            + "'; a writer waits for every reader to leave, so it would wait for itself. Close the"
                            + " read lease first.");
                });
            }
            boundHere(true).ifPresent(held -> {
                throw new IllegalStateException("this thread holds the write lease (token " + held.fencingToken()
                        + ") of read-write lock '" + semaphore.name() + "'; it would wait for itself. To read under"
                        + " it, use downgrade(lease).");
            });
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
            SlotLease lease = SlotSemaphore.awaitHolding(semaphore.start(count(), maxWait, Thread.currentThread(), write),
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
            return SlotSemaphore.adapt(semaphore.start(count(), maxWait, null, write), lease -> lease, () -> {
                throw new LockTimeoutException(semaphore.name(), maxWait);
            });
        }

        @Override
        public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration maxWait) {
            refuseSelfWait();
            return SlotSemaphore.adapt(semaphore.start(count(), maxWait, null, write), Optional::of, Optional::empty);
        }

        @Override
        public boolean isHeldByCurrentThread() {
            return boundHere(write).isPresent();
        }

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
            return what();
        }
    }
}
