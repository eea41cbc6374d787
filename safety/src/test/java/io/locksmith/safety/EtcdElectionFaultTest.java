package io.locksmith.safety;

import io.locksmith.tck.LockShape;

/** The fault rules about holders on one etcd member, every holding a term of an election (PrimitiveFaultRules). */
class EtcdElectionFaultTest extends EtcdFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.ELECTION_TERM;
    }
}
