package io.locksmith.safety;

import io.locksmith.tck.LockShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;

/** A 3-member etcd cluster's member killed, isolated or frozen under a leader (R9.6, R9.9, R9.10) and a session-bound leader cut off (R9.8), every holding a term of an election: the leader on the minority or frozen member is told before the majority elects another (PrimitiveFaultRules). */
class EtcdClusterElectionFaultTest extends EtcdClusterFaultTest {

    @Override
    protected LockShape lockShape() {
        return LockShape.ELECTION_TERM;
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        return PrimitiveFaultRules.holderRulesOnTheSingleNode(super.rulesNotRunHere(), lockShape(), "EtcdElectionFaultTest");
    }
}

