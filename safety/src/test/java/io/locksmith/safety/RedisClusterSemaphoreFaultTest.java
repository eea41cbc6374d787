package io.locksmith.safety;

import io.locksmith.tck.LockShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;

/** A Redis Cluster shard's primary killed under contention (R9.6), every holding a semaphore's 3 permits at once, whose permit locks live on different shards (PrimitiveFaultRules). */
class RedisClusterSemaphoreFaultTest extends RedisClusterFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.SEMAPHORE;
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        return PrimitiveFaultRules.holderRulesOnTheSingleNode(super.rulesNotRunHere(), lockShape(), "RedisSingleSemaphoreFaultTest");
    }
}
