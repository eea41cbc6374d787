package io.locksmith.safety;

import io.locksmith.tck.LockShape;

/** The fault rules about holders on one ZooKeeper server, every holding a semaphore's 3 permits at once (PrimitiveFaultRules). */
class ZooKeeperSemaphoreFaultTest extends ZooKeeperFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.SEMAPHORE;
    }
}
