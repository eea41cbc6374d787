package io.locksmith.safety;

import io.locksmith.tck.LockShape;

/** The fault rules about holders on one PostgreSQL server, every holding a semaphore's 3 permits at once (PrimitiveFaultRules). */
class PostgresSemaphoreFaultTest extends PostgresFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.SEMAPHORE;
    }
}
