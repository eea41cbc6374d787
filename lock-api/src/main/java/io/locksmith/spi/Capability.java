package io.locksmith.spi;

/**
 * Optional abilities a {@link LockProvider} declares. The shared client and the TCK switch behaviour and
 * optional rules on them; a provider must not declare what it does not do.
 */
public enum Capability {
    /** Fencing tokens strictly increase per lock name across holders (SPEC rule 7). */
    FENCING,
    /** {@link LockProvider#subscribe} reports releases, so waiters need not poll. */
    RELEASE_NOTIFICATION,
    /** {@link LockProvider#renewAll} renews many locks in one store request. */
    BATCH_RENEW,
    /** Waiters are served in arrival order (a queue in the store). */
    FAIR,
    /** The lock's life is bound to a store session (ZooKeeper, etcd lease) and the provider reports its loss. */
    SESSION_BOUND,
    /** {@link LockProvider#inspect} lists queued waiters. */
    INSPECT_WAITERS
}
