package io.locksmith;

/** What the client does, beyond marking the lease lost, when a lease is lost. */
public enum LossAction {
    /** Run the {@link Lease#onLost} callbacks; {@link Lease#isHeld()} turns false. The default. */
    NOTIFY,
    /**
     * As {@link #NOTIFY}, and also interrupt the thread that works in the critical section, to stop its work: the
     * thread of a blocking acquire, until the lease is {@linkplain Lease#handOff() handed off}. A lease from an
     * asynchronous acquire, or one handed off, has no such thread: its holder must react to {@link Lease#onLost}.
     */
    NOTIFY_AND_INTERRUPT_HOLDER
}
