package io.locksmith;

/** What the client does, beyond marking the lease lost, when a lease is lost. */
public enum LossAction {
    /** Run the {@link Lease#onLost} callbacks; {@link Lease#isHeld()} turns false. The default. */
    NOTIFY,
    /** As {@link #NOTIFY}, and also interrupt the thread that acquired the lease, to stop its work. */
    NOTIFY_AND_INTERRUPT_HOLDER
}
