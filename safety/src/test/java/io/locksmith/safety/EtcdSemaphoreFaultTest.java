package io.locksmith.safety;

import io.locksmith.tck.LockShape;

/** The fault rules about holders on one etcd member, every holding a semaphore's 3 permits at once (PrimitiveFaultRules). */
class EtcdSemaphoreFaultTest extends EtcdFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.SEMAPHORE;
    }
}
