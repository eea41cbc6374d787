package io.locksmith.safety;

import io.locksmith.tck.TckTiming;

import java.util.Set;

/**
 * The fault rules on Redis with Sentinel (Jedis): holder kill and pause, the client cut off from both data nodes or
 * losing a reply (one proxy per node, reached through the URI's {@code natMap}), and a failover that loses the grant
 * (R9.7).
 */
class RedisSentinelFaultTest extends DeploymentFaultTck {

    RedisSentinelFaultTest() {
        super(RedisSentinelDeployment::new, TckTiming.defaults(), Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    @Override
    protected void stopReplication() {
        stopReplicationOfDeployment();
    }

    @Override
    protected void failOver() {
        failOverDeployment();
    }
}
