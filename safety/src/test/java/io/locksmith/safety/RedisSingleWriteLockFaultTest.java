package io.locksmith.safety;

import io.locksmith.tck.LockShape;

/** The fault rules about holders on one redis-server, every holding a read-write lock's write lease (PrimitiveFaultRules). */
class RedisSingleWriteLockFaultTest extends RedisSingleFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.WRITE_LOCK;
    }
}
