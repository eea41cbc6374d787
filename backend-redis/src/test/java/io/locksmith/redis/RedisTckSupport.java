package io.locksmith.redis;

import io.locksmith.Capability;

import java.util.EnumSet;
import java.util.Set;

/** What the TCK subclasses of every Redis deployment share. */
final class RedisTckSupport {

    /**
     * What docs/REDIS.md promises of one primary (one node over Jedis, Redisson or Lettuce, Sentinel): fencing tokens,
     * release notification by pub/sub, batch renewal in one script, and fairness by the waiter queue a release hands
     * the lock from (rule R8.11).
     */
    static final Set<Capability> CAPABILITIES = EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION,
            Capability.BATCH_RENEW, Capability.FAIR);

    /** RedLock: the same but fairness, since no single node can hand over a lock that needs a majority. */
    static final Set<Capability> REDLOCK_CAPABILITIES = EnumSet.of(Capability.FENCING,
            Capability.RELEASE_NOTIFICATION, Capability.BATCH_RENEW);

    private RedisTckSupport() {
    }
}
