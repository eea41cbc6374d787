package io.locksmith;

/**
 * Thrown by {@link Lease#ensureHeld()} when the lease is no longer held: it expired, was taken away
 * behind the client's back, passed its maximum hold time, or the store became unreachable for longer
 * than the lease could be trusted.
 */
public class LockLostException extends LockException {
    private static final long serialVersionUID = 1L;

    private final transient LeaseLostEvent event;

    public LockLostException(LeaseLostEvent event) {
        super(event.lockName(), "lease lost (" + event.reason() + "): " + event.detail()
                + "; fencing token " + event.fencingToken(), event.cause());
        this.event = event;
    }

    /**
     * A loss reported with a message of its own, for example when an acquire meets this thread's lost lease.
     *
     * @param event   what was lost and why
     * @param message the whole message
     */
    public LockLostException(LeaseLostEvent event, String message) {
        super(event.lockName(), message, event.cause());
        this.event = event;
    }

    /** What was lost and why. */
    public LeaseLostEvent event() {
        return event;
    }
}
