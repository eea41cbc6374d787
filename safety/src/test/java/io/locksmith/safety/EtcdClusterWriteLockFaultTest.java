package io.locksmith.safety;

import io.locksmith.tck.LockShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;

/** A 3-member etcd cluster's member killed, isolated or frozen under a holder (R9.6, R9.9, R9.10) and a session-bound holder cut off (R9.8), every holding a read-write lock's write lease (PrimitiveFaultRules). */
class EtcdClusterWriteLockFaultTest extends EtcdClusterFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.WRITE_LOCK;
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        return PrimitiveFaultRules.holderRulesOnTheSingleNode(super.rulesNotRunHere(), lockShape(), "EtcdSemaphoreFaultTest");
    }
}
