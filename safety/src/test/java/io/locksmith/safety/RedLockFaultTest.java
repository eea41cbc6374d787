package io.locksmith.safety;

/** The fault rules on RedLock over three primaries: holder kill and pause, and one primary killed (R9.6). */
class RedLockFaultTest extends DeploymentFaultTck {

    @Override
    protected Deployment deploy() {
        return new RedLockDeployment(3);
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
