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

    @Override
    protected java.util.Map<io.locksmith.tck.fault.FaultRule, String> knownViolations() {
        // Found when R7.7 (issue 14) first ran with the per-master proxies (issue 15): after a 2 s blip on every
        // master, acquire(8s) of a free lock still failed with a store error, in 1 of the 2 full runs (RedLock x5
        // passed the same rule in both). A flaky failure is a bug: skipped, with its reason, until found. Open, issue 14.
        return java.util.Map.of(io.locksmith.tck.fault.FaultRule.R7_7, "after every master was silent for 2 s,"
                + " acquire(8s) of a free lock still failed with a store error in 1 of 2 full runs (pooled connections cut"
                + " during the blip are probably reused); open in issue 14");
    }
}
