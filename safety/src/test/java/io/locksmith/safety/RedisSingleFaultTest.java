package io.locksmith.safety;

/** The fault rules on one redis-server: holder kill and pause, cut-off client, lost reply. No node kill: it has one. */
class RedisSingleFaultTest extends DeploymentFaultTck {

    @Override
    protected Deployment deploy() {
        return new RedisSingleDeployment();
    }
}
