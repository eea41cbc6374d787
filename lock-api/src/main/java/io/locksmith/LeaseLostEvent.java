package io.locksmith;

/**
 * A lease was lost: delivered to {@link Lease#onLost} callbacks and carried by {@link LockLostException}.
 *
 * @param lockName      name of the lock
 * @param fencingToken  the token of the lost lease; writes fenced with it must now be rejected
 * @param holder        who held it
 * @param reason        why it was lost
 * @param detail        a human-readable explanation
 * @param cause         the store error behind the loss, or {@code null}
 */
public record LeaseLostEvent(String lockName, long fencingToken, HolderIdentity holder, LossReason reason,
                             String detail, Throwable cause) {
}
