package io.locksmith.safety;

import io.locksmith.LockClient;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.LockFaultTck;
import io.locksmith.tck.fault.TcpProxy;

/**
 * The fault kit against a {@link Deployment} started fresh for each rule (a rule may kill its nodes). A
 * subclass names the deployment; the hooks it does not support stay unsupported, and their rules are skipped,
 * naming the hook. The deployment is closed after the kit's clients.
 */
abstract class DeploymentFaultTck extends LockFaultTck {

    private Deployment deployment;

    /** Starts the deployment under test. */
    protected abstract Deployment deploy();

    /** The deployment of this rule, started on first use (the kit asks for its timing before the rule). */
    private Deployment deployment() {
        if (deployment == null) {
            deployment = closeAfterRule(deploy());
        }
        return deployment;
    }

    /**
     * Whether the rules with a victim JVM (R9.1 to R9.3) run on this deployment; off for ensembles, whose
     * single-node siblings run them through the same provider code, to keep the default build short.
     */
    protected boolean victimRules() {
        return true;
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(deployment().uri());
    }

    @Override
    protected String victimUri() {
        if (!victimRules()) {
            throw new UnsupportedOperationException("victimUri()");
        }
        return deployment().uri();
    }

    @Override
    protected String proxiedAddress() {
        return deployment().proxiedAddress();
    }

    @Override
    protected String uriThrough(TcpProxy proxy) {
        return deployment().uriThrough(proxy);
    }

    @Override
    protected TckTiming timing() {
        return deployment().timing();
    }

    /** Subclasses whose deployment survives a node's loss override this to call {@link #killNodeOfDeployment()}. */
    protected final void killNodeOfDeployment() {
        deployment().killNode();
    }

    protected final void restartNodeOfDeployment() {
        deployment().restartNode();
    }

    protected final void failOverDeployment() {
        deployment().failOver();
    }

    protected final void stopReplicationOfDeployment() {
        deployment().stopReplication();
    }
}
