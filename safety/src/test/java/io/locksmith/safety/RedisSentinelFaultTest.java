package io.locksmith.safety;

import io.locksmith.tck.TckTiming;

import java.util.Set;

/** The fault rules on Redis with Sentinel: a failover that loses the grant (R9.7). */
class RedisSentinelFaultTest extends DeploymentFaultTck {

    RedisSentinelFaultTest() {
        super(RedisSentinelDeployment::new, TckTiming.defaults(), Set.of(Fault.HOLDER_KILL));
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
