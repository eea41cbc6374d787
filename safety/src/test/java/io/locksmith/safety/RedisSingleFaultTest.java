package io.locksmith.safety;

import io.locksmith.tck.TckTiming;

import java.util.Set;

/** The fault rules on one redis-server: holder kill and pause, cut-off client, lost reply. No node kill: it has one. */
class RedisSingleFaultTest extends DeploymentFaultTck {

    RedisSingleFaultTest() {
        super(RedisSingleDeployment::new, TckTiming.defaults(), Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }
}
