package io.locksmith.spi;

/**
 * How a provider reports that the store lost a lock on its own: a ZooKeeper session expired, an etcd
 * lease keep-alive failed, a watch saw the key deleted. Given to the provider in its
 * {@link ProviderContext}. Thread-safe; may be called from any thread; never blocks.
 */
@FunctionalInterface
public interface LossListener {
    /**
     * The lock {@code grant} is no longer held, or no longer certainly held.
     *
     * @param grant   the lost grant, as {@link LockProvider#tryAcquire} returned it (the client matches owner id
     *                and fencing token, so a report may arrive even before the client has seen the grant)
     * @param reason  a human-readable explanation
     * @param cause   the store error, or {@code null}
     */
    void lost(Grant grant, String reason, Throwable cause);
}
