package io.locksmith.safety;

import io.locksmith.tck.LockShape;

/** The fault rules about holders on one ZooKeeper server, every holding a term of an election (PrimitiveFaultRules). */
class ZooKeeperElectionFaultTest extends ZooKeeperFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.ELECTION_TERM;
    }
}
