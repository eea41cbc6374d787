package io.locksmith;

/**
 * Optional abilities of the store behind a {@link LockClient} ({@link LockClient#capabilities()}), declared by
 * its backend ({@link io.locksmith.spi.LockProvider#capabilities()}). The shared client and the TCK switch
 * behaviour and optional rules on them; a backend must not declare what it does not do.
 *
 * <p>It lives in the API package, not in the SPI, because applications read it: the API does not depend on the
 * SPI, which depends on the API.
 */
public enum Capability {
    /**
     * Fencing tokens strictly increase per lock name across holders, also across an expiry (SPEC R5.1 to R5.3, and
     * the fault kit's R9.3 and R9.7).
     */
    FENCING,
    /** {@link io.locksmith.spi.LockProvider#subscribe} reports releases, so waiters need not poll. */
    RELEASE_NOTIFICATION,
    /** {@link io.locksmith.spi.LockProvider#renewAll} renews many locks in one store request. */
    BATCH_RENEW,
    /** Waiters are served in arrival order (a queue in the store). */
    FAIR,
    /**
     * The lock's life is bound to a store session (ZooKeeper, etcd lease) and the provider reports its loss. Such a
     * store applies no TTL per lock: the shared client releases a lock whose lease ran out
     * ({@link io.locksmith.spi.LockProvider#appliesTtl()}).
     */
    SESSION_BOUND,
    /** {@link io.locksmith.spi.LockProvider#inspect} lists queued waiters. */
    INSPECT_WAITERS,
    /**
     * The client authenticates as an identity and the store guards the lock's records by identity: a client of
     * another identity, one with a wrong password and one without credentials can neither delete, extend, take nor
     * read a held lock, even with the store's own commands (SPEC R2.6). Declared only when the connection uses the
     * store's access control (credentials in the URI and records only that identity may change); which identities the
     * store's administrator lets in is the deployment's part, stated per store in docs/SECURITY.md.
     */
    ACCESS_CONTROL
}
