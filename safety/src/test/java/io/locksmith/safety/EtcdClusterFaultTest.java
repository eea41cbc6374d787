package io.locksmith.safety;

/** The fault rules on a 3-member etcd cluster: the leader killed under contention (R9.6). */
class EtcdClusterFaultTest extends DeploymentFaultTck {

    @Override
    protected Deployment deploy() {
        return new EtcdDeployment(3);
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
