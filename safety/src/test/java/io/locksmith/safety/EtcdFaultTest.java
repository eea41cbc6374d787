package io.locksmith.safety;

/** The fault rules on one etcd member: holder kill and pause, cut-off client, lost reply. */
class EtcdFaultTest extends DeploymentFaultTck {

    @Override
    protected Deployment deploy() {
        return new EtcdDeployment(1);
    }
}
