package io.locksmith.safety;

import io.locksmith.tck.LockShape;

/** The fault rules about holders on one ZooKeeper server, every holding a read-write lock's write lease (PrimitiveFaultRules). */
class ZooKeeperWriteLockFaultTest extends ZooKeeperFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.WRITE_LOCK;
    }
}
