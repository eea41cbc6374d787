package io.locksmith.safety;

import io.locksmith.tck.LockShape;

/** The fault rules about holders on one etcd member, every holding a read-write lock's write lease (PrimitiveFaultRules). */
class EtcdWriteLockFaultTest extends EtcdFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.WRITE_LOCK;
    }
}
