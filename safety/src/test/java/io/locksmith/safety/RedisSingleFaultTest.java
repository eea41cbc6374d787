package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;

import java.util.Set;

/** The fault rules on one redis-server: holder kill and pause, cut-off client, lost reply. No node kill: it has one. */
class RedisSingleFaultTest extends DeploymentFaultTck {

    RedisSingleFaultTest() {
        super(RedisSingleDeployment::new, DeploymentShape.singleNode(), TckTiming.defaults(),
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }
}
