package io.locksmith;

/**
 * Root of every exception Locksmith throws for lock and store failures.
 *
 * <p>Unchecked, so callers decide where to handle it. It keeps the name of the lock it concerns
 * (when there is one) and the underlying cause. Misuse keeps the JDK types with their JDK meaning:
 * {@link NullPointerException} for a null argument, {@link IllegalArgumentException} for a bad value,
 * {@link IllegalMonitorStateException} for releasing what one does not hold.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String lockName;

    public LockException(String message) {
        this(null, message, null);
    }

    public LockException(String lockName, String message) {
        this(lockName, message, null);
    }

    public LockException(String lockName, String message, Throwable cause) {
        super(lockName == null ? message : message + " [lock '" + lockName + "']", cause);
        this.lockName = lockName;
    }

    /** The name of the lock this failure concerns, or {@code null} when it concerns no single lock. */
    public String lockName() {
        return lockName;
    }
}
