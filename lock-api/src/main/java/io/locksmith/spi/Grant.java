package io.locksmith.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * A lock the store granted: returned by {@link LockProvider#tryAcquire} and handed back for renew and
 * release.
 *
 * @param name          the lock name
 * @param owner         the owner it was granted to
 * @param fencingToken  the token of this holding; strictly greater than every earlier holder's for the
 *                      same name when the provider declares {@link io.locksmith.Capability#FENCING}
 * @param validity      how long, from the moment the request was sent, the store guarantees the lock is
 *                      this owner's (usually the TTL; RedLock subtracts the time spent and the clock drift)
 * @param handle        provider data for this holding (a ZooKeeper node path, an etcd key), or {@code null}
 */
public record Grant(String name, Owner owner, long fencingToken, Duration validity, Object handle) {
    public Grant {
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(owner, "owner cannot be null");
        Objects.requireNonNull(validity, "validity cannot be null");
    }

    /** A grant without provider data. */
    public Grant(String name, Owner owner, long fencingToken, Duration validity) {
        this(name, owner, fencingToken, validity, null);
    }
}
