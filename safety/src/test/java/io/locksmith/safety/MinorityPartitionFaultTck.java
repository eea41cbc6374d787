package io.locksmith.safety;

import io.locksmith.tck.TckTiming;

import java.util.Set;
import java.util.function.Supplier;

/**
 * The fault kit on a deployment whose {@link Deployment} can cut a client's side from the majority (rule R9.9): the
 * four hooks of a minority partition are the deployment's own. A subclass adds what else its deployment survives.
 */
abstract class MinorityPartitionFaultTck extends DeploymentFaultTck {

    MinorityPartitionFaultTck(Supplier<Deployment> deploy, TckTiming timing, Set<Fault> faults) {
        super(deploy, timing, faults);
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
