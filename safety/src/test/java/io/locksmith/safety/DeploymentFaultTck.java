package io.locksmith.safety;

import io.locksmith.LockClient;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;
import io.locksmith.tck.fault.LockFaultTck;
import io.locksmith.tck.fault.TcpProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The fault kit against a {@link Deployment} started fresh for each rule (a rule may kill its nodes), once the
 * rule is known to run: a rule skipped for a missing hook starts nothing. A subclass names the deployment and
 * the faults whose rules run on it; the other hooks stay unsupported and their rules are skipped, naming the
 * hook. The deployment is closed after the kit's clients. The rules whose faults touch no server (a holder's or a
 * client's: R7.7, R8.10, R9.1 to R9.5, R9.8, R9.16 to R9.18, each with its own proxies and lock names) share one
 * deployment per kit class, started by the first of them and closed after the class: starting a Sentinel or a
 * PostgreSQL server takes longer than such a rule. A rule that kills, freezes, partitions, fails over or restarts a
 * server gets a fresh one.
 */
abstract class DeploymentFaultTck extends LockFaultTck {

    private final Supplier<Deployment> deploy;
    private final DeploymentShape shape;
    private final TckTiming timing;
    private final Set<Fault> faults;
    private Deployment deployment;

    /**
     * The rules that leave the deployment as they found it, and so share one per kit class: their faults are a
     * holder's (a victim JVM killed or paused) or a client's (its proxy cut, slowed, or dropping a reply), on lock
     * names of their own; no server is touched. Starting a Sentinel group, a cluster or a PostgreSQL pair per rule took
     * most of these classes' time.
     */
    private static final Set<FaultRule> SHARING = EnumSet.of(FaultRule.R7_7, FaultRule.R8_10, FaultRule.R9_1,
            FaultRule.R9_2, FaultRule.R9_3, FaultRule.R9_4, FaultRule.R9_5, FaultRule.R9_8, FaultRule.R9_16,
            FaultRule.R9_17, FaultRule.R9_18);
    private static final Map<Class<?>, Deployment> SHARED = new ConcurrentHashMap<>();
    private boolean sharing;

    /**
     * @param deploy  starts the deployment
     * @param shape   one node or several members (known before it starts): a single node also runs the restart of its
     *                server (R9.19), through {@link Deployment#restartStore()}
     * @param timing  the deployment's timing ({@link Deployment#timing()}, known before it starts)
     * @param faults  the faults whose rules run here: {@code HOLDER_KILL} for R9.1 to R9.3 (victim JVMs),
     *                {@code CLIENT_PARTITION} for R9.4 and R9.5 (proxy); node kills are switched on by
     *                extending {@link NodeKillFaultTck} (or overriding {@link #killStoreNode()}), failovers by
     *                overriding {@link #failOver()}, minority partitions by extending {@link MinorityPartitionFaultTck}
     */
    DeploymentFaultTck(Supplier<Deployment> deploy, DeploymentShape shape, TckTiming timing, Set<Fault> faults) {
        this.deploy = Objects.requireNonNull(deploy);
        this.shape = Objects.requireNonNull(shape);
        this.timing = Objects.requireNonNull(timing);
        this.faults = faults.isEmpty() ? EnumSet.noneOf(Fault.class) : EnumSet.copyOf(faults);
    }

    @BeforeEach
    final void noteTheRule(TestInfo test) {
        sharing = test.getTestMethod().flatMap(method -> FaultRule.ofMethod(method.getName()))
                .filter(SHARING::contains).isPresent();
    }

    @AfterAll
    static void closeSharedDeployment(TestInfo test) {
        test.getTestClass().map(SHARED::remove).ifPresent(Deployment::close);
    }

    private Deployment deployment() {
        if (deployment == null) {
            deployment = sharing ? SHARED.computeIfAbsent(getClass(), kit -> deploy.get()) : closeAfterRule(deploy.get());
        }
        return deployment;
    }

    @Override
    protected DeploymentShape deploymentShape() {
        return shape;
    }

    /** A single node's server restarted ({@link Deployment#restartStore()}); a replicated deployment has none. */
    @Override
    protected void restartStore() {
        if (shape.isReplicated()) {
            throw new UnsupportedOperationException("restartStore()");
        }
        deployment().restartStore();
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(deployment().uri());
    }

    @Override
    protected String victimUri() {
        if (!faults.contains(Fault.HOLDER_KILL)) {
            throw new UnsupportedOperationException("victimUri()");
        }
        return deployment().uri();
    }

    @Override
    protected String proxiedAddress() {
        if (!faults.contains(Fault.CLIENT_PARTITION)) {
            throw new UnsupportedOperationException("proxiedAddress()");
        }
        return deployment().proxiedAddress();
    }

    @Override
    protected String uriThrough(TcpProxy proxy) {
        return deployment().uriThrough(proxy);
    }

    @Override
    protected List<String> proxiedAddresses() {
        if (!faults.contains(Fault.CLIENT_PARTITION)) {
            throw new UnsupportedOperationException("proxiedAddress()");
        }
        return deployment().proxiedAddresses();
    }

    /** One proxy goes through {@link #uriThrough(TcpProxy)}, which a kit subclass may override; several, the deployment. */
    @Override
    protected String uriThrough(List<TcpProxy> proxies) {
        return proxies.size() == 1 ? uriThrough(proxies.get(0)) : deployment().uriThrough(proxies);
    }

    @Override
    protected TckTiming timing() {
        return timing;
    }

    /** The deployment, for the hooks of a minority partition (rule R9.9). */
    protected final Deployment deploymentForPartition() {
        return deployment();
    }

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
