package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;

import java.util.Set;
import java.util.function.Supplier;

/**
 * The fault kit on a deployment built to survive the loss of one store node (rule R9.6): a leader, a primary that
 * Sentinel replaces, a RedLock minority primary. The kill and the restart are the deployment's own.
 */
abstract class NodeKillFaultTck extends DeploymentFaultTck {

    NodeKillFaultTck(Supplier<Deployment> deploy, DeploymentShape shape, TckTiming timing, Set<Fault> faults) {
        super(deploy, shape, timing, faults);
    }

    @Override
    protected void killStoreNode() {
        killNodeOfDeployment();
    }

    @Override
    protected void restartStoreNode() {
        restartNodeOfDeployment();
    }
}
