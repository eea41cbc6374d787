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
 * to survive: its replica, which acknowledged every grant, is promoted.
 */
class RedisClusterFaultTest extends NodeKillFaultTck {

    RedisClusterFaultTest() {
        super(RedisClusterDeployment::new, DeploymentShape.replicated(6), TckTiming.defaults(),
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        String notYet = "not run on Redis Cluster yet: a primary cut from its replicas and the other primaries while its "
                + "clients reach it needs a per-node firewall of the cluster bus (as Sentinel's partition test has for "
                + "replication); the replica acknowledgement (WAIT 1) that answers it on Sentinel is the cluster's "
                + "default, and the resharding and failover tests are in backend-redis's ClusterFaultTest";
        return Map.of(FaultRule.R9_9, notYet, FaultRule.R9_10, notYet);
    }
}
