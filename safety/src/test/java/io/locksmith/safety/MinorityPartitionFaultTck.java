package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;

import java.util.Set;
import java.util.function.Supplier;

/**
 * The fault kit on a deployment whose {@link Deployment} can cut a client's side from the majority (rule R9.9): the
 * four hooks of a minority partition are the deployment's own, as are the node kill and restart (R9.6) of
 * {@link NodeKillFaultTck}: every such deployment also survives the loss of one node.
 */
abstract class MinorityPartitionFaultTck extends NodeKillFaultTck {

    MinorityPartitionFaultTck(Supplier<Deployment> deploy, DeploymentShape shape, TckTiming timing, Set<Fault> faults) {
        super(deploy, shape, timing, faults);
    }

    @Override
    protected String minorityMemberUri() {
        return deploymentForPartition().minorityMemberUri();
    }

    @Override
    protected String majorityUri() {
        return deploymentForPartition().majorityUri();
    }

    @Override
    protected void isolateMinorityMember() {
        deploymentForPartition().isolateMinorityMember();
    }

    @Override
    protected void healMinorityMember() {
        deploymentForPartition().healMinorityMember();
    }
}
