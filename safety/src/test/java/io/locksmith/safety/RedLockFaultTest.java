package io.locksmith.safety;

import io.locksmith.tck.TckTiming;

import java.util.Set;

/** The fault rules on RedLock over three primaries: holder kill and pause, the client cut off or losing a reply (one proxy per primary), one primary killed (R9.6). */
class RedLockFaultTest extends DeploymentFaultTck {

    RedLockFaultTest() {
        super(() -> new RedLockDeployment(3), TckTiming.defaults(), Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
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
