package io.locksmith.safety;

import java.util.Set;

/** The fault rules on a 3-server ZooKeeper ensemble: holder kill and pause, the client cut off or losing a reply (one proxy per server), the leader killed under contention (R9.6). */
class ZooKeeperEnsembleFaultTest extends DeploymentFaultTck {

    ZooKeeperEnsembleFaultTest() {
        super(ZooKeeperEnsembleDeployment::new, ZooKeeperEnsembleDeployment.TIMING, Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
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
