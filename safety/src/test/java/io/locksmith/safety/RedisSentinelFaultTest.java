package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;
import java.util.Set;

/**
 * The fault rules on Redis with Sentinel (Jedis): holder kill and pause, the client cut off from both data nodes or
 * losing a reply (one proxy per node, reached through the URI's {@code natMap}), and a failover that loses the grant
 * (R9.7). These clients opt out of the replica acknowledgement ({@code waitReplicas=0}), so a promoted replica may
 * lack a grant (that is what R9.7 checks is fenced): the rules that need the lock to move only after its holder was
 * told do not hold for this configuration by design and run on Sentinel's default, {@code waitReplicas=1}.
 */
class RedisSentinelFaultTest extends DeploymentFaultTck {

    RedisSentinelFaultTest() {
        super(RedisSentinelDeployment::new, DeploymentShape.replicated(2), TckTiming.defaults(),
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    @Override
    protected void stopReplication() {
        stopReplicationOfDeployment();
    }

    @Override
    protected void failOver() {
        failOverDeployment();
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        String optOut = "waitReplicas=0 gives up the replica acknowledgement by design (REDIS.md): a promoted replica may "
                + "lack the grant, which R9.7 checks is fenced; ";
        return Map.of(
                FaultRule.R9_6, optOut + "R9.6 runs on the default, waitReplicas=1, in RedisSentinelWaitFaultTest "
                        + "and RedisSentinelRedissonFaultTest",
                FaultRule.R9_9, optOut + RedisSentinelWaitFaultTest.PARTITIONS_IN_BACKEND_REDIS.get(FaultRule.R9_9),
                FaultRule.R9_10, optOut + RedisSentinelWaitFaultTest.PARTITIONS_IN_BACKEND_REDIS.get(FaultRule.R9_10));
    }
}
