package io.locksmith;

/**
 * Thrown when the lock store could not be reached or answered with an error: a refused connection, a
 * command time-out, an authentication failure. The message names the store.
 *
 * <p>When this is thrown by an acquire, the client has already made sure that no lock it might have
 * obtained stays behind (an owner-checked release of the ambiguous attempt).
 */
public class LockStoreException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockStoreException(String lockName, String message, Throwable cause) {
        super(lockName, message, cause);
    }

    public LockStoreException(String message, Throwable cause) {
        super(null, message, cause);
    }
}
