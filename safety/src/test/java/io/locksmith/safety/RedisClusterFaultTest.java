package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;
import java.util.Set;

/**
 * The fault rules on a Redis Cluster (Jedis, {@code WAIT 1} per shard, the default): holder kill and pause (R9.1,
 * R9.2), the client cut off from every node or losing a reply (R9.4, R9.5, one proxy per node through
 * {@code natMap}), and the primary of the locks' shard killed under contention (R9.6), which the deployment is built
 * to survive: its replica, which acknowledged every grant, is promoted. R9.9 and R9.10 run in backend-redis.
 */
class RedisClusterFaultTest extends NodeKillFaultTck {

    RedisClusterFaultTest() {
        super(RedisClusterDeployment::new, DeploymentShape.replicated(6), TckTiming.defaults(),
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        String partitions = "runs in backend-redis's ClusterPartitionFaultTest, on three primaries with two replicas each:"
                + " the promoted replica needs a replica of its own to acknowledge grants (WAIT 1); this deployment has"
                + " one per shard";
        return Map.of(FaultRule.R9_9, partitions, FaultRule.R9_10, partitions);
    }
}
