package io.locksmith.safety;

import io.locksmith.tck.fault.DeploymentShape;

import java.time.Duration;
import java.util.Set;

/**
 * The fault rules on a 3-member etcd cluster: the leader killed under contention (R9.6), the leader cut from
 * the two others while its client stays connected to it (R9.9), and the leader frozen with SIGSTOP while its client
 * stays connected to it (R9.10).
 */
class EtcdClusterFaultTest extends MinorityPartitionFaultTck {

    EtcdClusterFaultTest() {
        super(() -> new EtcdDeployment(3), DeploymentShape.replicated(3), EtcdDeployment.TIMING,
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    @Override
    protected void freezeMember() {
        deploymentForPartition().freezeMember();
    }

    @Override
    protected void thawMember() {
        deploymentForPartition().thawMember();
    }

    /** The lease, a new leader's election (under 2 election time-outs), and the majority's acquire. */
    @Override
    protected Duration minorityPartitionBound() {
        return EtcdDeployment.PARTITION_LEASE.plus(timing().slack());
    }
}
