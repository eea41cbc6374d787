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
 * Rule R9.10 on a three-member ZooKeeper ensemble of separate JVMs ({@link ProcessEnsemble}, {@code tickTime=2000},
 * {@code syncLimit=5}): the holder talks to the leader only, which is frozen with SIGSTOP; the other client talks
 * to the two followers, which give up on the silent leader after {@code syncLimit x tickTime}, elect a new one,
 * and expire the holder's session. A 4 s session and a 3 s lease, as in {@link ZooKeeperMinorityPartitionFaultTest}.
 */
class ZooKeeperFrozenLeaderFaultTest extends LockFaultTck {

    private static final Duration SESSION = Duration.ofSeconds(4);

    private ProcessEnsemble ensemble;
    private ProcessEnsemble.Member leader;

    private ProcessEnsemble ensemble() {
        if (ensemble == null) {
            ensemble = closeAfterRule(new ProcessEnsemble(ZooKeeperMinorityPartitionTck.TICK_TIME_MILLIS,
                    ZooKeeperMinorityPartitionTck.SYNC_LIMIT));
            leader = ensemble.theLeader();
        }
        return ensemble;
    }

    private String uri(List<ProcessEnsemble.Member> members) {
        return "zookeeper://" + ensemble().connectString(members) + "/frozen?lease=3s&sessionTimeout="
                + SESSION.toSeconds() + "s";
    }

    @Override
    protected DeploymentShape deploymentShape() {
        return DeploymentShape.replicated(3);
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        Map<FaultRule, String> elsewhere = new EnumMap<>(FaultRule.class);
        for (FaultRule rule : deploymentShape().requiredRules()) {
            if (rule != FaultRule.R9_10) {
                elsewhere.put(rule, "this class runs R9.10 only, on three server JVMs whose leader"
                        + " is frozen with SIGSTOP; R9.9 runs in ZooKeeperMinorityPartitionFaultTest, and the other rules of"
                        + " a ZooKeeper ensemble in the safety module's ZooKeeperEnsembleFaultTest (in-JVM ensemble)");
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
        return uri(List.of(leader));
    }

    @Override
    protected String majorityUri() {
        return uri(ensemble().othersThan(leader));
    }

    @Override
    protected void freezeMember() {
        ensemble().freeze(leader);
    }

    /** The old leader finds its followers gone, and rejoins the new leader's quorum. */
    @Override
    protected void thawMember() {
        ensemble().thaw(leader, Duration.ofSeconds(60));
    }

    /**
     * The followers wait {@code syncLimit x tickTime} (10 s) for the silent leader, elect a new one, which then
     * expires the holder's session (4 s, rounded up to a tick); with room for a loaded machine.
     */
    @Override
    protected Duration minorityPartitionBound() {
        return Duration.ofMillis((long) ZooKeeperMinorityPartitionTck.SYNC_LIMIT * ZooKeeperMinorityPartitionTck.TICK_TIME_MILLIS)
                .plus(SESSION).plusMillis(2L * ZooKeeperMinorityPartitionTck.TICK_TIME_MILLIS).plusSeconds(10);
    }
}
