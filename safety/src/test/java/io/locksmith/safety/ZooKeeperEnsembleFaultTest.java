package io.locksmith.safety;

import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;
import java.util.Set;

/** The fault rules on a 3-server ZooKeeper ensemble: holder kill and pause, the client cut off or losing a reply (one proxy per server), the leader killed under contention (R9.6). */
class ZooKeeperEnsembleFaultTest extends NodeKillFaultTck {

    ZooKeeperEnsembleFaultTest() {
        super(ZooKeeperEnsembleDeployment::new, DeploymentShape.replicated(3), ZooKeeperEnsembleDeployment.TIMING,
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        return Map.of(
                FaultRule.R9_9, "runs in backend-zookeeper's ZooKeeperMinorityPartitionFaultTest and "
                        + "ZooKeeperMinorityPartitionDefaultsFaultTest, on an ensemble of three server JVMs cut by "
                        + "iptables per process: the members of this in-JVM ensemble share one process",
                FaultRule.R9_10, "runs in backend-zookeeper's ZooKeeperFrozenLeaderFaultTest, on an ensemble of three "
                        + "server JVMs whose leader is frozen with SIGSTOP: the members of this in-JVM ensemble share "
                        + "one process");
    }
}
