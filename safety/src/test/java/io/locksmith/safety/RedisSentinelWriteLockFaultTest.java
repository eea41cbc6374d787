package io.locksmith.safety;

import io.locksmith.tck.LockShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;

/** A Sentinel failover that loses the grant (R9.7), every holding a read-write lock's write lease: the promoted replica's double grant is fenced (PrimitiveFaultRules). */
class RedisSentinelWriteLockFaultTest extends RedisSentinelFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.WRITE_LOCK;
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        return PrimitiveFaultRules.holderRulesOnTheSingleNode(super.rulesNotRunHere(), lockShape(), "RedisSingleSemaphoreFaultTest");
    }
}
