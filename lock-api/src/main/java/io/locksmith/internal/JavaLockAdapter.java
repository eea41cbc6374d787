package io.locksmith.internal;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockInterruptedException;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/** {@link Lock} over a {@link DistributedLock}, with the per-thread ownership that {@code Lock} expects. */
final class JavaLockAdapter implements Lock {

    private final DistributedLock lock;
    private final Map<Thread, Deque<Lease>> leases = new ConcurrentHashMap<>();

    JavaLockAdapter(DistributedLock lock) {
        this.lock = lock;
    }

    @Override
    public void lock() {
        boolean interrupted = false;
        while (true) {
            try {
                push(lock.acquire());
                break;
            } catch (LockInterruptedException e) {
                // Lock.lock() is not interruptible: keep waiting, and restore the flag when done.
                Thread.interrupted();
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        try {
            push(lock.acquire());
        } catch (LockInterruptedException e) {
            Thread.interrupted();
            throw (InterruptedException) e.getCause();
        }
    }

    @Override
    public boolean tryLock() {
        return lock.tryAcquire().map(this::push).isPresent();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit cannot be null");
        try {
            return lock.tryAcquire(Duration.ofNanos(Math.max(0, unit.toNanos(time)))).map(this::push).isPresent();
        } catch (LockInterruptedException e) {
            Thread.interrupted();
            throw (InterruptedException) e.getCause();
        }
    }

    private Lease push(Lease lease) {
        leases.computeIfAbsent(Thread.currentThread(), t -> new ArrayDeque<>()).push(lease);
        return lease;
    }

    @Override
    public void unlock() {
        Thread thread = Thread.currentThread();
        Deque<Lease> mine = leases.get(thread);
        if (mine == null || mine.isEmpty()) {
            throw new IllegalMonitorStateException("You do not own the lock: " + lock.name());
        }
        Lease lease = mine.pop();
        if (mine.isEmpty()) {
            leases.remove(thread);
        }
        lease.close();
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("distributed locks have no conditions: " + lock.name());
    }
}
