package io.locksmith.redis;

import io.locksmith.tck.PrimitivesTck;
import io.locksmith.tck.server.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The semaphore, read-write lock and election kit on a Redis Cluster of three primaries with one replica each
 * (Jedis): a primitive's store locks ({@code NAME#permit:I}, the gate) fall in different slots, each on its shard.
 */
class ClusterPrimitivesTckTest extends PrimitivesTck {

    static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** As ClusterLockTckTest: a replica's acknowledgement may take more than the default 100 ms on a loaded machine. */
    @Override
    protected String storeUri() {
        return cluster.uri() + "?waitTimeout=1s";
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        ClusterTestSupport.expireNow(cluster, lockName);
    }
}
