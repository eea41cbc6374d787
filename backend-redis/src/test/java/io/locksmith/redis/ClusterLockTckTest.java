package io.locksmith.redis;

import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;
import io.locksmith.Capability;
import io.locksmith.tck.StoreTck;
import io.locksmith.tck.server.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.Set;

/**
 * The full TCK on a Redis Cluster of three primaries with one replica each (Jedis), every lock on the primary of
 * its slot and acknowledged by that shard's replica ({@code WAIT 1}, the cluster's default). The locks of the kit's
 * batch renewals fall in many slots: each slot's locks are renewed by one script, never {@code CROSSSLOT}.
 * The primitives' kit (SemaphoreKit, ReadWriteKit, ElectionKit) runs in the same class, on the same store.
 */
class ClusterLockTckTest extends StoreTck implements SemaphoreKit, ReadWriteKit, ElectionKit {

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

    /**
     * The default URI but for {@code waitTimeout=1s}: six servers replicating on a loaded 2-core CI machine missed the
     * default 100 ms for a replica's acknowledgement (R1.2 failed once with "0 of 1 replica(s) acknowledged").
     */
    @Override
    protected String storeUri() {
        return cluster.uri() + "?waitTimeout=1s";
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        ClusterTestSupport.expireNow(cluster, lockName);
    }

    /** What docs/REDIS.md promises of a Redis Cluster: the same as of one primary (R8.11). */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return RedisTckSupport.CAPABILITIES;
    }
}
