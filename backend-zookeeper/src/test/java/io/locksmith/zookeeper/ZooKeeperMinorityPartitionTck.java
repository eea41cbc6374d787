package io.locksmith.zookeeper;

import io.locksmith.LockClient;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;
import io.locksmith.tck.fault.LockFaultTck;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Rule R9.9 on a three-member ZooKeeper ensemble of separate JVMs ({@link ProcessEnsemble}), with the issue's
 * server settings ({@code tickTime=2000}, {@code syncLimit=5}: a follower cut from the leader keeps serving its
 * clients from stale state for 10 s): the holder talks to one follower only, which is cut from its peers; the
 * other client talks to the two others. A subclass chooses the client's session timeout and lease.
 */
abstract class ZooKeeperMinorityPartitionTck extends LockFaultTck {

    static final int TICK_TIME_MILLIS = 2000;
    static final int SYNC_LIMIT = 5;

    private ProcessEnsemble ensemble;
    private ProcessEnsemble.Member minority;

    /** The URI parameters of both clients, e.g. {@code lease=3s&sessionTimeout=4s}. */
    abstract String parameters();

    /** The session timeout the parameters ask for (the server's bounds: 4 s to 40 s). */
    abstract Duration sessionTimeout();

    private ProcessEnsemble ensemble() {
        if (ensemble == null) {
            ensemble = closeAfterRule(new ProcessEnsemble(TICK_TIME_MILLIS, SYNC_LIMIT));
            minority = ensemble.aFollower();
        }
        return ensemble;
    }

    private String uri(List<ProcessEnsemble.Member> members) {
        String parameters = parameters();
        return "zookeeper://" + ensemble().connectString(members) + "/partition"
                + (parameters.isEmpty() ? "" : "?" + parameters);
    }

    @Override
    protected DeploymentShape deploymentShape() {
        return DeploymentShape.replicated(3);
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        Map<FaultRule, String> elsewhere = new EnumMap<>(FaultRule.class);
        for (FaultRule rule : deploymentShape().requiredRules()) {
            if (rule != FaultRule.R9_9) {
                elsewhere.put(rule, "this class runs R9.9 only, on three server JVMs cut apart by"
                        + " iptables per process; R9.10 runs in ZooKeeperFrozenLeaderFaultTest, and the other rules of a"
                        + " ZooKeeper ensemble in the safety module's ZooKeeperEnsembleFaultTest (in-JVM ensemble)");
            }
        }
        return elsewhere;
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(uri(ensemble().members()));
    }

    @Override
    protected String minorityMemberUri() {
        ensemble();
        return uri(List.of(minority));
    }

    @Override
    protected String majorityUri() {
        return uri(ensemble().othersThan(minority));
    }

    @Override
    protected void isolateMinorityMember() {
        ensemble().isolate(minority);
    }

    @Override
    protected void healMinorityMember() {
        // The cut member gives up on the leader after syncLimit x tickTime, then elects with a notification
        // timeout that doubled in every round it was alone.
        ensemble().heal(Duration.ofSeconds(60));
    }

    /** The session timeout, the leader's expiry rounding (a tick) and a grant, with room for a loaded machine. */
    @Override
    protected Duration minorityPartitionBound() {
        return sessionTimeout().plusMillis(2L * TICK_TIME_MILLIS).plusSeconds(10);
    }
}
