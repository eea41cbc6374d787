package io.locksmith.safety;

/** The fault rules on one ZooKeeper server: holder kill and pause, cut-off client, lost reply. */
class ZooKeeperFaultTest extends DeploymentFaultTck {

    @Override
    protected Deployment deploy() {
        return new ZooKeeperDeployment();
    }
}
