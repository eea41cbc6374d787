package io.locksmith.spi;

/**
 * How a provider reports that the store lost a lock on its own: a ZooKeeper session expired, an etcd
 * lease keep-alive failed, a watch saw the key deleted. Given to the provider in its
 * {@link ProviderContext}. Thread-safe; may be called from any thread; never blocks.
 */
@FunctionalInterface
public interface LossListener {
    /**
     * The lock {@code grant} is no longer held, or no longer certainly held. For a store that applies no TTL
     * ({@link LockProvider#appliesTtl()} false) the report also means that the store lets the lock go without the
     * client (the session ended, the lease expired) or that the provider deletes it itself: the client then stops
     * releasing it.
     *
     * @param grant   the lost grant, as {@link LockProvider#tryAcquire} returned it (the client matches owner id
     *                and fencing token, so a report may arrive even before the client has seen the grant)
     * @param reason  a human-readable explanation
     * @param cause   the store error, or {@code null}
     */
    void lost(Grant grant, String reason, Throwable cause);
}
