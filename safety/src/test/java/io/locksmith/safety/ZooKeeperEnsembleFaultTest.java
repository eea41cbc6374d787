package io.locksmith.safety;

/** The fault rules on a 3-server ZooKeeper ensemble: the leader killed under contention (R9.6). */
class ZooKeeperEnsembleFaultTest extends DeploymentFaultTck {

    @Override
    protected Deployment deploy() {
        return new ZooKeeperEnsembleDeployment();
    }

    @Override
    protected void killStoreNode() {
        killNodeOfDeployment();
    }

    @Override
    protected void restartStoreNode() {
        restartNodeOfDeployment();
    }

    @Override
    protected boolean victimRules() {
        return false;
    }
}
