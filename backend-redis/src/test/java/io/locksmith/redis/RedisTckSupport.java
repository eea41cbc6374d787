package io.locksmith.redis;

import io.locksmith.Capability;

import java.util.EnumSet;
import java.util.Set;

/** What the TCK subclasses of every Redis deployment share. */
final class RedisTckSupport {

    /**
     * What docs/REDIS.md promises of every deployment (one node over Jedis or Redisson, Sentinel, RedLock): fencing
     * tokens, release notification by pub/sub, and batch renewal in one script per node (rule R8.11).
     */
    static final Set<Capability> CAPABILITIES = EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION,
            Capability.BATCH_RENEW);

    private RedisTckSupport() {
    }
}
