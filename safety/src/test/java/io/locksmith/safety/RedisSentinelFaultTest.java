package io.locksmith.safety;

/** The fault rules on Redis with Sentinel: holder kill and pause, and a failover that loses the grant (R9.7). */
class RedisSentinelFaultTest extends DeploymentFaultTck {

    @Override
    protected Deployment deploy() {
        return new RedisSentinelDeployment();
    }

    @Override
    protected void stopReplication() {
        stopReplicationOfDeployment();
    }

    @Override
    protected void failOver() {
        failOverDeployment();
    }

    @Override
    protected boolean victimRules() {
        return false;
    }
}
