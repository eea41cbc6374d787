package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;
import io.locksmith.tck.fault.LockFaultTck;
import io.locksmith.tck.fault.LoopbackFirewall;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * Rules R9.9 and R9.10 on Redis Sentinel with the default URI ({@code WAIT} for one replica). R9.10: the primary is
 * frozen with SIGSTOP (its connections stay open) and the Sentinels promote a replica. R9.9: the primary is cut from its
 * two replicas and its three Sentinels (quorum 2) while the test's clients still reach it; the Sentinels promote
 * a replica. The holder on the cut-off primary must be told before the promoted replica grants the lock, and the
 * lock must be available again once the old primary rejoined as a replica.
 *
 * <p>{@code down-after-milliseconds} equals the lease: the holder's lease runs out on the cut-off primary before
 * the Sentinels even agree that it is down. With a shorter {@code down-after}, a holder whose renewal reaches the
 * promoted replica before its lease runs out keeps the lock (safely: the replica acknowledged it), so it is never
 * told of a loss, which this rule does not foresee (see REDIS.md).
 */
class SentinelPartitionFaultTest extends LockFaultTck {

    private static final String MASTER = "mymaster";
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration DOWN_AFTER = LEASE;

    private Deployment deployment;
    private LoopbackFirewall firewall;

    /** A primary, two replicas, three Sentinels with quorum 2; started once a rule needs it, closed after it. */
    private static final class Deployment implements AutoCloseable {
        final List<ServerProcess> servers = new ArrayList<>();
        final ServerProcess primary;
        final List<ServerProcess> replicas = new ArrayList<>();
        final List<ServerProcess> sentinels = new ArrayList<>();

        Deployment() {
            try {
                primary = started(StoreServers.redis());
                for (int i = 0; i < 2; i++) {
                    replicas.add(started(StoreServers.redis("--replicaof", "127.0.0.1", Integer.toString(primary.port()))));
                }
                await("both replicas in sync").atMost(Duration.ofSeconds(20))
                        .until(() -> connectedReplicas(primary.port()) == 2);
                for (int i = 0; i < 3; i++) {
                    sentinels.add(started(StoreServers.sentinel(primary.port(), MASTER, 2, DOWN_AFTER)));
                }
                await("the Sentinels discovering each other and the replicas").atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(200)).until(this::sentinelsReady);
            } catch (RuntimeException | Error e) {
                close();
                throw e;
            }
        }

        private ServerProcess started(ServerProcess server) {
            servers.add(server);
            return server;
        }

        private boolean sentinelsReady() {
            for (ServerProcess sentinel : sentinels) {
                try (Jedis jedis = jedis(sentinel.port())) {
                    if (jedis.sentinelReplicas(MASTER).size() != 2 || jedis.sentinelSentinels(MASTER).size() != 2) {
                        return false;
                    }
                }
            }
            return true;
        }

        String uri(String client) {
            StringBuilder hosts = new StringBuilder();
            for (ServerProcess sentinel : sentinels) {
                hosts.append(hosts.length() == 0 ? "" : ",").append("127.0.0.1:").append(sentinel.port());
            }
            // The default URI but for the lease: acquire and renew wait for one replica (WAIT).
            return "redis-sentinel://" + hosts + "/" + MASTER + "?lease=" + LEASE.toMillis() + "ms&timeout=500ms&client="
                    + client;
        }

        int primaryPortNamedBySentinels() {
            for (ServerProcess sentinel : sentinels) {
                try (Jedis jedis = jedis(sentinel.port())) {
                    return Integer.parseInt(jedis.sentinelGetMasterAddrByName(MASTER).get(1));
                } catch (RuntimeException e) {
                    // try the next Sentinel
                }
            }
            return -1;
        }

        @Override
        public void close() {
            for (int i = servers.size() - 1; i >= 0; i--) {
                servers.get(i).close();
            }
        }
    }

    /** The Redis transport of every client the rules open ({@code client=} of the URI). */
    protected String transport() {
        return "jedis";
    }

    private Deployment deployment() {
        if (deployment == null) {
            deployment = closeAfterRule(new Deployment());
        }
        return deployment;
    }

    @Override
    protected DeploymentShape deploymentShape() {
        return DeploymentShape.replicated(3);
    }

    /** This class runs the partitions only; the rest of the kit runs on Sentinel in the safety module. */
    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        Map<FaultRule, String> elsewhere = new EnumMap<>(FaultRule.class);
        for (FaultRule rule : deploymentShape().requiredRules()) {
            if (rule != FaultRule.R9_9 && rule != FaultRule.R9_10) {
                elsewhere.put(rule, "this class runs R9.9 and R9.10 only, which need two replicas and three Sentinels;"
                        + " the other rules run on Sentinel with the same client settings (waitReplicas=1) in the safety"
                        + " module's RedisSentinelWaitFaultTest (Jedis) and RedisSentinelRedissonFaultTest (Redisson)");
            }
        }
        return elsewhere;
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(deployment().uri(transport()));
    }

    @Override
    protected String minorityMemberUri() {
        return deployment().uri(transport());
    }

    /** The same Sentinels: they lead the majority side to the promoted replica. */
    @Override
    protected String majorityUri() {
        return deployment().uri(transport());
    }

    /** The primary's replicas and Sentinels lose their links to it; the test's clients keep theirs. */
    @Override
    protected void isolateMinorityMember() {
        firewall = closeAfterRule(LoopbackFirewall.open());
        int primaryPort = deployment.primary.port();
        for (ServerProcess replica : deployment.replicas) {
            firewall.cutProcess(replica.pid(), primaryPort);
        }
        for (ServerProcess sentinel : deployment.sentinels) {
            firewall.cutProcess(sentinel.pid(), primaryPort);
        }
    }

    /**
     * Heals, then waits until the old primary is a replica of the promoted one and the promoted primary has two
     * replicas in sync again. Prints how long the old primary still accepted writes after the heal: the window in
     * which a client that had not yet followed the failover could be granted a lock there.
     */
    @Override
    protected void healMinorityMember() {
        int oldPrimaryPort = deployment.primary.port();
        int newPrimaryPort = deployment.primaryPortNamedBySentinels();
        if (newPrimaryPort == oldPrimaryPort || newPrimaryPort < 0) {
            firewall.heal();
            throw new AssertionError("the Sentinels did not fail over during the partition (they name port "
                    + newPrimaryPort + ", the cut-off primary is " + oldPrimaryPort + ")");
        }
        if (connectedReplicas(newPrimaryPort) < 1) {
            firewall.heal();
            throw new AssertionError("the promoted primary at port " + newPrimaryPort + " has no replica to acknowledge"
                    + " a grant: the majority side could not grant the lock during the partition");
        }
        long healedAt = System.nanoTime();
        firewall.heal();
        await("the old primary refusing writes after the heal").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50)).until(() -> refusesWrites(oldPrimaryPort));
        long writableMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healedAt);
        System.out.println("Sentinel partition: the old primary accepted writes for " + writableMillis
                + " ms after the heal, until the Sentinels made it a replica");
        await("the promoted primary with two replicas in sync").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100)).until(() -> connectedReplicas(newPrimaryPort) == 2);
    }

    /**
     * Rule R9.10: the primary is frozen (SIGSTOP) with its connections open; the Sentinels find it down and promote
     * a replica, which had every renewal the holder was told of (WAIT).
     */
    @Override
    protected void freezeMember() {
        deployment().primary.pause();
    }

    /** Resumes the old primary and waits until the Sentinels made it a replica of the promoted one. */
    @Override
    protected void thawMember() {
        int oldPrimaryPort = deployment.primary.port();
        deployment.primary.resume();
        int newPrimaryPort = deployment.primaryPortNamedBySentinels();
        if (newPrimaryPort == oldPrimaryPort || newPrimaryPort < 0) {
            throw new AssertionError("the Sentinels did not fail over while the primary was frozen (they name port "
                    + newPrimaryPort + ", the frozen primary is " + oldPrimaryPort + ")");
        }
        await("the thawed old primary refusing writes").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50)).until(() -> refusesWrites(oldPrimaryPort));
        await("the promoted primary with two replicas in sync").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100)).until(() -> connectedReplicas(newPrimaryPort) == 2);
    }

    @Override
    protected Duration minorityPartitionBound() {
        // The lease, then down-after, agreement and election among the Sentinels (up to 1 s of random
        // desynchronisation), promotion and the other replica's reconfiguration.
        return Duration.ofSeconds(20);
    }

    /**
     * Whether the member at {@code port} answers a write with READONLY. A probe that meets a reset connection asks
     * again: Redis closes its clients' connections when a Sentinel makes it a replica, which is the change awaited.
     */
    private static boolean refusesWrites(int port) {
        try (Jedis jedis = jedis(port)) {
            jedis.set("locksmith-test:writable-probe", "1");
            return false;
        } catch (JedisDataException e) {
            return e.getMessage() != null && e.getMessage().startsWith("READONLY");
        } catch (JedisConnectionException e) {
            return false;
        }
    }

    private static int connectedReplicas(int port) {
        try (Jedis jedis = jedis(port)) {
            Map<String, String> info = new HashMap<>();
            for (String line : jedis.info("replication").split("\r?\n")) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    info.put(line.substring(0, colon), line.substring(colon + 1).trim());
                }
            }
            if (!"master".equals(info.get("role"))) {
                return -1;
            }
            int online = 0;
            int count = Integer.parseInt(info.getOrDefault("connected_slaves", "0"));
            for (int i = 0; i < count; i++) {
                if (info.getOrDefault("slave" + i, "").contains("state=online")) {
                    online++;
                }
            }
            return online;
        }
    }

    private static Jedis jedis(int port) {
        return new Jedis("127.0.0.1", port, 2_000);
    }
}
