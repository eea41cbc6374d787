package io.locksmith.safety;

import io.locksmith.tck.TckTiming;

import java.util.Set;

/**
 * The fault rules on RedLock over five primaries: holder kill and pause (R9.1, R9.2), the client cut off from
 * all five or losing a reply (R9.4, R9.5, one proxy per primary), and one primary killed (R9.6).
 */
class RedLock5FaultTest extends DeploymentFaultTck {

    RedLock5FaultTest() {
        super(() -> new RedLockDeployment(5), TckTiming.defaults(), Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
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
