package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;
import io.locksmith.tck.fault.LockFaultTck;
import io.locksmith.tck.fault.LoopbackFirewall;
import io.locksmith.tck.server.RedisCluster;
import io.locksmith.tck.server.ServerProcess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * Rules R9.9 and R9.10 on a Redis Cluster with the default URI ({@code WAIT} for one replica of the shard). The
 * cluster has three primaries with two replicas each, and the first primary serves every slot but two, so the
 * rules' locks are on its shard ({@link RedisCluster.SlotLayout#FIRST_SHARD}). R9.9: that primary is cut from its
 * replicas and from the other primaries (data and bus ports, both ways) while the test's clients still reach it; the
 * other primaries vote for one of its replicas, which is promoted with a replica of its own to acknowledge grants.
 * R9.10: the primary is frozen with SIGSTOP (its connections stay open) and the same happens. The holder on the old
 * primary must be told before the promoted replica grants the lock.
 *
 * <p>{@code cluster-node-timeout} equals the lease, as {@code down-after-milliseconds} does in
 * {@link SentinelPartitionFaultTest}: the holder's renewals on the cut-off primary stop being acknowledged at once
 * (its replicas are cut), so its lease runs out there before the others even agree that it failed.
 */
class ClusterPartitionFaultTest extends LockFaultTck {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration NODE_TIMEOUT = LEASE;
    /** A slot of the first shard, the one whose primary the rules cut off or freeze. */
    private static final int LOCKS_SLOT = 0;

    private RedisCluster cluster;
    private ServerProcess oldPrimary;
    private LoopbackFirewall firewall;

    private RedisCluster cluster() {
        if (cluster == null) {
            cluster = closeAfterRule(RedisCluster.start(3, 2, NODE_TIMEOUT, RedisCluster.SlotLayout.FIRST_SHARD));
            oldPrimary = cluster.primaryOf(LOCKS_SLOT);
        }
        return cluster;
    }

    @Override
    protected DeploymentShape deploymentShape() {
        return DeploymentShape.replicated(9);
    }

    /** This class runs the partitions only; the rest of the kit runs on Redis Cluster in the safety module. */
    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        Map<FaultRule, String> elsewhere = new EnumMap<>(FaultRule.class);
        for (FaultRule rule : deploymentShape().requiredRules()) {
            if (rule != FaultRule.R9_9 && rule != FaultRule.R9_10) {
                elsewhere.put(rule, "this class runs R9.9 and R9.10 only, which need two replicas per shard; the other"
                        + " rules run on Redis Cluster with the same client settings (waitReplicas=1) in the safety"
                        + " module's RedisClusterFaultTest");
            }
        }
        return elsewhere;
    }

    /** The default URI but for the lease: acquire and renew wait for one replica of the shard. */
    private String uri(List<ServerProcess> seeds) {
        StringBuilder hosts = new StringBuilder();
        for (ServerProcess seed : seeds) {
            hosts.append(hosts.length() == 0 ? "" : ",").append("127.0.0.1:").append(seed.port());
        }
        return "redis-cluster://" + hosts + "?lease=" + LEASE.toMillis() + "ms&timeout=500ms";
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(uri(cluster().nodes()));
    }

    /** Every node as seed: the holder's client reads the slot map before the partition and keeps the old primary. */
    @Override
    protected String minorityMemberUri() {
        return uri(cluster().nodes());
    }

    /** The nodes but the old primary as seeds: the majority side's map leads to the promoted replica. */
    @Override
    protected String majorityUri() {
        List<ServerProcess> majority = new ArrayList<>(cluster().nodes());
        majority.remove(oldPrimary);
        return uri(majority);
    }

    /**
     * The old primary loses every link to the other nodes, data and bus, both ways (each side's packets to the other's
     * ports dropped); the test's clients keep theirs.
     */
    @Override
    protected void isolateMinorityMember() {
        RedisCluster nodes = cluster();
        firewall = closeAfterRule(LoopbackFirewall.open());
        List<Integer> otherPorts = new ArrayList<>();
        for (ServerProcess node : nodes.nodes()) {
            if (node != oldPrimary) {
                firewall.cutProcess(node.pid(), oldPrimary.port(), nodes.busPort(oldPrimary));
                otherPorts.add(node.port());
                otherPorts.add(nodes.busPort(node));
            }
        }
        // iptables' multiport match takes at most 15 ports: the 16 of the other nodes go in two rules.
        for (int from = 0; from < otherPorts.size(); from += 15) {
            firewall.cutProcess(oldPrimary.pid(), otherPorts.subList(from, Math.min(otherPorts.size(), from + 15))
                    .stream().mapToInt(Integer::intValue).toArray());
        }
    }

    /**
     * Heals, then waits until the old primary is a replica of the promoted one and every node reports the cluster ok.
     * Prints how long the old primary still served the shard after the heal.
     */
    @Override
    protected void healMinorityMember() {
        ServerProcess promoted = promotedOrFail("during the partition");
        long healedAt = System.nanoTime();
        firewall.heal();
        await("the old primary following the promoted one").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50)).until(() -> isReplica(oldPrimary));
        System.out.println("Cluster partition: the old primary served the shard for "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healedAt) + " ms after the heal, until it learnt of "
                + promoted + "'s promotion");
        cluster.awaitReady();
    }

    /** Rule R9.10: the shard's primary is frozen (SIGSTOP) with its connections open. */
    @Override
    protected void freezeMember() {
        cluster();
        oldPrimary.pause();
    }

    /** Resumes the old primary and waits until it follows the promoted one and the cluster is ok. */
    @Override
    protected void thawMember() {
        promotedOrFail("while the primary was frozen");
        oldPrimary.resume();
        await("the thawed old primary following the promoted one").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50)).until(() -> isReplica(oldPrimary));
        cluster.awaitReady();
    }

    private ServerProcess promotedOrFail(String when) {
        for (ServerProcess node : cluster.nodes()) {
            if (node != oldPrimary && node.isAlive() && isPrimaryOfLocksSlot(node)) {
                return node;
            }
        }
        firewall().heal();
        oldPrimary.resume();
        throw new AssertionError("no replica of " + oldPrimary + " was promoted " + when);
    }

    private LoopbackFirewall firewall() {
        return firewall == null ? LoopbackFirewall.open() : firewall;
    }

    /** Whether {@code node} itself says it is a primary serving the locks' slot. */
    private boolean isPrimaryOfLocksSlot(ServerProcess node) {
        try {
            return cluster.cli(node, "cluster", "nodes").lines().anyMatch(line -> line.contains("myself")
                    && line.contains("master") && servesLocksSlot(line));
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** Whether a {@code CLUSTER NODES} line lists {@link #LOCKS_SLOT} (slot 0) among its node's slots. */
    private static boolean servesLocksSlot(String clusterNodesLine) {
        String[] fields = clusterNodesLine.split(" ");
        for (int i = 8; i < fields.length; i++) {
            if (fields[i].equals(Integer.toString(LOCKS_SLOT)) || fields[i].startsWith(LOCKS_SLOT + "-")) {
                return true;
            }
        }
        return false;
    }

    private boolean isReplica(ServerProcess node) {
        try {
            String replication = cluster.cli(node, "info", "replication");
            return replication.contains("role:slave") && replication.contains("master_link_status:up");
        } catch (IllegalStateException e) {
            return false;
        }
    }

    @Override
    protected Duration minorityPartitionBound() {
        // The lease, then the node time-out, the failure report's spread, the replica's election delay (500 ms plus
        // up to 500 ms plus its rank) and the vote.
        return Duration.ofSeconds(20);
    }
}
