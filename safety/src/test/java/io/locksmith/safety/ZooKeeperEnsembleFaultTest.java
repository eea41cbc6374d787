package io.locksmith.safety;

import java.util.Set;

/** The fault rules on a 3-server ZooKeeper ensemble: the leader killed under contention (R9.6). */
class ZooKeeperEnsembleFaultTest extends DeploymentFaultTck {

    ZooKeeperEnsembleFaultTest() {
        super(ZooKeeperEnsembleDeployment::new, ZooKeeperEnsembleDeployment.TIMING, Set.of());
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
