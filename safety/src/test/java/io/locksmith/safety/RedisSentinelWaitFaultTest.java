package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;
import java.util.Set;

/**
 * The fault rules on Redis with Sentinel whose clients wait for one replica ack per write ({@code waitReplicas=1}):
 * holder kill and pause (R9.1, R9.2), the client cut off from both data nodes or losing a reply (R9.4, R9.5, one
 * proxy per node through {@code natMap}), and the primary killed under contention (R9.6), which this deployment is
 * built to survive: Sentinel promotes the replica, which has every grant a client was told of.
 */
class RedisSentinelWaitFaultTest extends NodeKillFaultTck {

    /** Where the minority partition and the frozen primary run on Sentinel with {@code waitReplicas=1}, and why there. */
    static final Map<FaultRule, String> PARTITIONS_IN_BACKEND_REDIS = Map.of(
            FaultRule.R9_9, "runs in backend-redis's SentinelPartitionFaultTest (Jedis) and "
                    + "SentinelPartitionRedissonFaultTest (Redisson), on a primary with two replicas and three Sentinels "
                    + "(quorum 2): the promoted replica needs a replica of its own to acknowledge grants, and a majority "
                    + "of Sentinels must outvote the cut-off side; this deployment has one replica and one Sentinel",
            FaultRule.R9_10, "runs in backend-redis's SentinelPartitionFaultTest (Jedis) and "
                    + "SentinelPartitionRedissonFaultTest (Redisson), on a primary with two replicas and three Sentinels: "
                    + "the promoted replica needs a replica of its own to acknowledge grants; this deployment has one");

    RedisSentinelWaitFaultTest() {
        super(() -> new RedisSentinelDeployment(1), DeploymentShape.replicated(2), TckTiming.defaults(),
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        return PARTITIONS_IN_BACKEND_REDIS;
    }
}
