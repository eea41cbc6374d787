package io.locksmith.redis;

import io.locksmith.tck.server.RedisCluster;
import io.locksmith.tck.server.ServerProcess;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/** What the Redis Cluster tests do to the servers behind the clients' backs. */
final class ClusterTestSupport {

    private ClusterTestSupport() {
    }

    /** The slot of the lock {@code name}: all of its keys are in it. */
    static int slotOf(String name) {
        return JedisClusterCRC16.getSlot(RedisLockKeys.lockKey(name));
    }

    /** Makes the lock expire now on the primary of its slot, as a TTL running out would. */
    static void expireNow(RedisCluster cluster, String lockName) {
        // Through a cluster client, which follows the slot map as the lock clients do (and MOVED, if it changed).
        java.util.Set<redis.clients.jedis.HostAndPort> seeds = new java.util.HashSet<>();
        cluster.nodes().stream().filter(ServerProcess::isAlive)
                .forEach(node -> seeds.add(new redis.clients.jedis.HostAndPort("127.0.0.1", node.port())));
        try (redis.clients.jedis.JedisCluster jedis = new redis.clients.jedis.JedisCluster(seeds)) {
            jedis.pexpire(RedisLockKeys.lockKey(lockName), 1);
        }
    }

    /** A connection to {@code node} for checks; close it. */
    static Jedis jedis(ServerProcess node) {
        return new Jedis("127.0.0.1", node.port());
    }
}
