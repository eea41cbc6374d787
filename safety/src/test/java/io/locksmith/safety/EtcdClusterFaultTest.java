package io.locksmith.safety;

import java.util.Set;

/** The fault rules on a 3-member etcd cluster: the leader killed under contention (R9.6). */
class EtcdClusterFaultTest extends DeploymentFaultTck {

    EtcdClusterFaultTest() {
        super(() -> new EtcdDeployment(3), EtcdDeployment.TIMING, Set.of());
    }

    @Override
    protected void killStoreNode() {
        killNodeOfDeployment();
    }

    @Override
    protected void restartStoreNode() {
        restartNodeOfDeployment();
    }
}
