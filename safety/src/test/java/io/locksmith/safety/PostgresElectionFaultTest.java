package io.locksmith.safety;

import io.locksmith.tck.LockShape;

/** The fault rules about holders on one PostgreSQL server, every holding a term of an election (PrimitiveFaultRules). */
class PostgresElectionFaultTest extends PostgresFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.ELECTION_TERM;
    }
}
