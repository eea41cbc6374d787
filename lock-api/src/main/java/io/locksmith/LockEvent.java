package io.locksmith;

import java.time.Duration;

/**
 * Something that happened to a lock, delivered to a {@link LockListener}: the hook for metrics and
 * logging. Events are delivered on the thread where they happen; a listener must be fast and must
 * not throw (what it throws is logged and ignored).
 *
 * @param type          what happened
 * @param lockName      name of the lock
 * @param store         the store's scheme, e.g. {@code redis}, for tagging metrics
 * @param fencingToken  the lease's token, or {@code -1} when there is no lease
 * @param holder        the holder identity involved, or {@code null}
 * @param elapsed       for {@code ACQUIRED}, {@code ACQUIRE_TIMED_OUT} and {@code ACQUIRE_FAILED}: the time spent
 *                      waiting; for {@code RELEASED} and {@code LOST}: the time the lease was held; otherwise zero
 * @param error         the failure behind {@code ACQUIRE_FAILED}, {@code RENEW_FAILED} or {@code RELEASE_FAILED};
 *                      for {@code LOST}, a {@link LockLostException} whose {@link LockLostException#event() event}
 *                      gives the {@link LossReason} and whose cause is the store error, if any; otherwise {@code null}
 */
public record LockEvent(Type type, String lockName, String store, long fencingToken, HolderIdentity holder,
                        Duration elapsed, Throwable error) {

    /** The kinds of event. */
    public enum Type {
        /** A lease was granted by the store (not sent for local re-entry). */
        ACQUIRED,
        /** A local re-entry was counted: no store round trip. */
        REENTERED,
        /** A bounded wait ended without the lock. */
        ACQUIRE_TIMED_OUT,
        /** An acquire failed with a store error or an interruption. */
        ACQUIRE_FAILED,
        /** A lease was released in the store. */
        RELEASED,
        /** The release could not be confirmed by the store (the lease ends at its TTL anyway). */
        RELEASE_FAILED,
        /** A lease was renewed. */
        RENEWED,
        /** A renewal failed with a store error; the client keeps trying until the lease's local deadline. */
        RENEW_FAILED,
        /** A lease was lost. */
        LOST
    }
}
