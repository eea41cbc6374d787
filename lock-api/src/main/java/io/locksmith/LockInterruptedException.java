package io.locksmith;

/**
 * Thrown when a thread is interrupted while waiting for a lock. The thread's interrupt flag is set
 * again before this is thrown, so code further up still sees the interruption.
 */
public class LockInterruptedException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockInterruptedException(String lockName, InterruptedException cause) {
        super(lockName, "interrupted while waiting for the lock", cause);
    }
}
