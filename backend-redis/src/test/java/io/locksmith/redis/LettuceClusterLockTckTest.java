package io.locksmith.redis;

/**
 * The full TCK on a Redis Cluster through Lettuce ({@code client=lettuce}): each script and its {@code WAIT} go to the
 * connection of its slot's primary, redirects are followed by the transport; the batch renewal is split by slot and
 * the listing walks every primary, as over Jedis and Redisson.
 */
class LettuceClusterLockTckTest extends ClusterLockTckTest {

    @Override
    protected String storeUri() {
        return cluster.uri() + "?waitTimeout=1s&client=lettuce";
    }
}
