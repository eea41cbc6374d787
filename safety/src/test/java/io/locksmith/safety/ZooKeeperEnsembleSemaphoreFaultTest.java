package io.locksmith.safety;

import io.locksmith.tck.LockShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;

/** A ZooKeeper ensemble's leader killed under contention (R9.6) and a session-bound holder cut off (R9.8), every holding a semaphore's 3 permits at once (PrimitiveFaultRules). */
class ZooKeeperEnsembleSemaphoreFaultTest extends ZooKeeperEnsembleFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.SEMAPHORE;
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        return PrimitiveFaultRules.holderRulesOnTheSingleNode(super.rulesNotRunHere(), lockShape(), "ZooKeeperWriteLockFaultTest");
    }
}
