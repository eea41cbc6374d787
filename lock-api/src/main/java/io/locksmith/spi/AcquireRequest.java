package io.locksmith.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * One attempt to take a lock, passed to {@link LockProvider#tryAcquire}.
 *
 * @param name      the lock name, already validated by the client
 * @param owner     who asks
 * @param ttl       how long the store must keep the lock without renewal; already passed through
 *                  {@link LockProvider#effectiveTtl}
 * @param willWait  true when the caller will keep trying until a deadline: a queueing provider may keep
 *                  its place in the queue between attempts, and must drop it on {@link LockProvider#cancel}
 */
public record AcquireRequest(String name, Owner owner, Duration ttl, boolean willWait) {
    public AcquireRequest {
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(owner, "owner cannot be null");
        Objects.requireNonNull(ttl, "ttl cannot be null");
    }
}
