package io.locksmith.redis;

/**
 * The full TCK on a Redis Cluster through Redisson in cluster mode ({@code client=redisson}): Redisson routes each
 * script by its first key and follows redirects; the batch renewal is split by slot and the listing walks every
 * primary, as over Jedis.
 */
class RedissonClusterLockTckTest extends ClusterLockTckTest {

    @Override
    protected String storeUri() {
        return cluster.uri() + "?client=redisson";
    }
}
