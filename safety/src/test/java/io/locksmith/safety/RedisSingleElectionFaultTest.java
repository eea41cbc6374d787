package io.locksmith.safety;

import io.locksmith.tck.LockShape;

/** The fault rules about holders on one redis-server, every holding a term of an election: a leader killed, paused or cut off (PrimitiveFaultRules). */
class RedisSingleElectionFaultTest extends RedisSingleFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.ELECTION_TERM;
    }
}
