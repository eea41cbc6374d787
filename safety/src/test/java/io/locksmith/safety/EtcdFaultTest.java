package io.locksmith.safety;

import io.locksmith.tck.fault.DeploymentShape;

import java.util.Set;

/** The fault rules on one etcd member: holder kill and pause, cut-off client, lost reply. */
class EtcdFaultTest extends DeploymentFaultTck {

    EtcdFaultTest() {
        super(() -> new EtcdDeployment(1), DeploymentShape.singleNode(), EtcdDeployment.TIMING,
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }
}
