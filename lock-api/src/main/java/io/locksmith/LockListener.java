package io.locksmith;

/**
 * Receives {@link LockEvent}s from a {@link LockClient}: the hook for metrics, tracing and logs.
 * lock-api has no metrics dependency; a Micrometer binding implements this interface.
 *
 * <p>Called on the thread where the event happens (an acquiring thread, the renewal thread): an
 * implementation must be fast, thread-safe and must not block. Exceptions it throws are logged and
 * ignored.
 */
@FunctionalInterface
public interface LockListener {
    /** Called for every event. */
    void onEvent(LockEvent event);
}
