package io.locksmith.safety;

import io.locksmith.tck.LockShape;

/** The fault rules about holders on one redis-server, every holding a semaphore's 3 permits at once (PrimitiveFaultRules). */
class RedisSingleSemaphoreFaultTest extends RedisSingleFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.SEMAPHORE;
    }
}
