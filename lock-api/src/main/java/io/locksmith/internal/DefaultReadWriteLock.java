package io.locksmith.internal;

import io.locksmith.DistributedLock;
import io.locksmith.DistributedReadWriteLock;
import io.locksmith.Lease;
import io.locksmith.LockOptions;

import java.util.List;
import java.util.Objects;

/**
 * A read-write lock as a {@link SlotSemaphore} of {@code maxReaders} permits under {@code NAME#rw}: a reader takes
 * one permit, a writer every one. The semaphore's gate makes a waiting writer keep new readers out, and its token
 * orders readers and writers in one sequence.
 */
final class DefaultReadWriteLock implements DistributedReadWriteLock {

    /** What a read-write lock is called in messages, and the kind of its semaphore. */
    static final String KIND = "read-write lock";

    private final SlotSemaphore semaphore;
    private final SlotLockView readView;
    private final SlotLockView writeView;

    DefaultReadWriteLock(DefaultLockClient client, String name, LockOptions options, int maxReaders) {
        if (maxReaders < 1 || maxReaders > io.locksmith.DistributedSemaphore.MAX_PERMITS) {
            throw new IllegalArgumentException("read-write lock '" + name + "' must admit between 1 and "
                    + io.locksmith.DistributedSemaphore.MAX_PERMITS + " readers, was " + maxReaders);
        }
        this.semaphore = new SlotSemaphore(client, name, maxReaders, options, KIND, "#rw");
        this.readView = new SlotLockView(semaphore, 1, false, "read lock of read-write lock '" + name + "'");
        this.writeView = new SlotLockView(semaphore, maxReaders, true, "write lock of read-write lock '" + name + "'");
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
        if (!(writeLease instanceof SlotLease write) || !SlotLockView.sameSemaphore(write.semaphore(), semaphore)
                || !write.isExclusive()) {
            throw new IllegalArgumentException("not a write lease of read-write lock '" + name() + "' from this client: "
                    + writeLease);
        }
        write.ensureHeld();
        Lease kept = write.permitLeases().get(0);
        boolean boundHere = SlotLockView.boundHere(write);
        SlotLease read = new SlotLease(semaphore, List.of(kept), write.fencingToken(),
                boundHere ? Thread.currentThread() : null, false);
        if (!write.closeKeeping(kept)) {
            read.closeAsync();
            throw new IllegalMonitorStateException("write lease of read-write lock '" + name() + "' (token "
                    + write.fencingToken() + ") was closed while it was being downgraded");
        }
        if (boundHere) {
            SlotLockView.bind(read);
        }
        return read;
    }

    @Override
    public List<io.locksmith.LockInfo> holders(java.time.Duration timeout) {
        return semaphore.holders(timeout);
    }
}
