package io.locksmith;

import java.time.Duration;

/** Thrown by {@link DistributedLock#acquire(Duration)} when the lock was not obtained within the wait. */
public class LockTimeoutException extends LockException {
    private static final long serialVersionUID = 1L;

    private final Duration waited;

    public LockTimeoutException(String lockName, Duration waited) {
        super(lockName, "lock not acquired within " + waited);
        this.waited = waited;
    }

    /** How long the caller was willing to wait. */
    public Duration waited() {
        return waited;
    }
}
