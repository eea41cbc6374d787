package io.locksmith.safety;

import io.locksmith.tck.fault.DeploymentShape;

import java.util.Set;

/** The fault rules on one ZooKeeper server: holder kill and pause, cut-off client, lost reply. */
class ZooKeeperFaultTest extends DeploymentFaultTck {

    ZooKeeperFaultTest() {
        super(ZooKeeperDeployment::new, DeploymentShape.singleNode(), ZooKeeperDeployment.TIMING,
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }
}
