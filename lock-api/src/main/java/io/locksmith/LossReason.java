package io.locksmith;

/** Why a lease was lost. */
public enum LossReason {
    /** The lease ran out: it had a fixed TTL shorter than the work, or renewal could not keep up. */
    EXPIRED,
    /** The store no longer has this holder's lock: deleted, expired early, or taken by another holder. */
    TAKEN_AWAY,
    /** The lease was held for its maximum hold time; renewal stopped on purpose. */
    MAX_HOLD_EXCEEDED,
    /** The store could not be reached for longer than the lease could be trusted. */
    STORE_UNREACHABLE,
    /** The store's session (ZooKeeper session, etcd lease) behind the lock ended or became uncertain. */
    SESSION_LOST,
    /** The client was closed while the lease was held; the client released it. */
    CLIENT_CLOSED
}
