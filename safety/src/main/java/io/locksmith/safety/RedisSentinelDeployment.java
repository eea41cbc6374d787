package io.locksmith.safety;

import io.locksmith.LockClient;
import io.locksmith.tck.fault.LoopbackFirewall;
import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.tck.server.ServerProcess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A primary, one replica and one Sentinel (quorum 1, primary down after 1 s): {@code redis-sentinel://}.
 * The replica replicates through a {@link TcpProxy}, so that {@link #stopReplication()} can make it miss the
 * latest writes, as asynchronous replication does when a primary dies before sending them.
 *
 * <p>With {@code waitReplicas=1} every grant is acknowledged by the replica (Redis {@code WAIT}) before the client
 * is told, so the deployment is built to survive the loss of its primary: {@link #killNode()} kills whichever
 * node is primary now and returns once Sentinel promoted the other; {@link #restartNode()} starts it again, and
 * Sentinel turns it into a replica of the new primary.
 */
public final class RedisSentinelDeployment implements Deployment {

    static final String MASTER = "mymaster";

    private final int waitReplicas;
    private final String client;
    private final ServerProcess primary;
    private final TcpProxy replicationLink;
    private final ServerProcess replica;
    private final ServerProcess sentinel;

    private ServerProcess killed;
    private LoopbackFirewall firewall;
    /** Whether a failover happened: replication no longer goes through {@link #replicationLink}. */
    private boolean failedOver;

    public RedisSentinelDeployment() {
        this(0);
    }

    /** @param waitReplicas the {@code waitReplicas} of the clients' URI: 0 (asynchronous replication) or 1 */
    public RedisSentinelDeployment(int waitReplicas) {
        this(waitReplicas, "jedis");
    }

    /**
     * @param waitReplicas the {@code waitReplicas} of the clients' URI: 0 (asynchronous replication) or 1
     * @param client       the clients' transport: {@code jedis}, {@code redisson} or {@code lettuce}
     */
    public RedisSentinelDeployment(int waitReplicas, String client) {
        this.waitReplicas = waitReplicas;
        this.client = client;
        List<AutoCloseable> started = new ArrayList<>();
        try {
            primary = started(started, Servers.redis());
            replicationLink = started(started, TcpProxy.start("127.0.0.1", primary.port()));
            replica = started(started, Servers.redis("--replicaof", "127.0.0.1", Integer.toString(replicationLink.port())));
            Servers.awaitState("the replica's first sync", Duration.ofSeconds(20),
                    () -> Servers.redisCommand(replica.port(), "INFO", "replication").contains("master_link_status:up"));
            sentinel = started(started, Servers.sentinel(primary.port(), MASTER));
            Servers.awaitState("Sentinel discovering the replica", Duration.ofSeconds(20),
                    () -> Servers.redisCommand(sentinel.port(), "SENTINEL", "replicas", MASTER).contains(Integer.toString(replica.port())));
            if (!"jedis".equals(client)) {
                // The first Redisson client of a JVM loads Netty and pings within the command time-out (300 ms
                // here), which a cold JVM on a loaded machine misses ("Can't connect to servers!", seen twice in
                // a row): warm the JVM up with a patient client first, as the etcd deployment does for gRPC.
                try (LockClient warmUp = LockClient.open("redis-sentinel://127.0.0.1:" + sentinel.port() + "/" + MASTER
                        + "?timeout=30s&waitReplicas=0&client=" + client)) {
                    warmUp.lock("warm-up").tryAcquire().ifPresent(io.locksmith.Lease::close);
                }
            }
        } catch (RuntimeException e) {
            closeReversed(started);
            throw e;
        }
    }

    private static <T extends AutoCloseable> T started(List<AutoCloseable> started, T resource) {
        started.add(resource);
        return resource;
    }

    @Override
    public String name() {
        return (waitReplicas == 0 ? "redis-sentinel" : "redis-sentinel-wait" + waitReplicas)
                + ("jedis".equals(client) ? "" : "-" + client);
    }

    @Override
    public String description() {
        return "redis-server primary + 1 asynchronous replica + 1 Sentinel (quorum 1, down after 1 s)"
                + (waitReplicas == 0 ? ", waitReplicas=0 (fenced only)"
                        : ", every write waits for " + waitReplicas + " replica ack (WAIT)")
                + ("jedis".equals(client) ? "" : ", client=" + client);
    }

    @Override
    public String uri() {
        return "redis-sentinel://127.0.0.1:" + sentinel.port() + "/" + MASTER + "?" + RedisSingleDeployment.TIMEOUT
                // Explicit both ways: the URI's default is waitReplicas=1 (WAIT), and 0 is the fenced-only opt-out.
                + "&waitReplicas=" + waitReplicas + "&client=" + client;
    }

    /**
     * Both data nodes, primary and replica (either may be primary after a failover). The Sentinel is not proxied:
     * it is how the client finds the primary, not where its lock commands go, and its own traffic (Redisson asks
     * it every second) would take the one reply a lost-reply rule means the acquire to lose.
     */
    @Override
    public List<String> proxiedAddresses() {
        return List.of("127.0.0.1:" + primary.port(), "127.0.0.1:" + replica.port());
    }

    /**
     * The Sentinel announces the nodes' real addresses, so the client maps each to its proxy with the URI
     * parameter {@code natMap}, as a client behind NAT does.
     */
    @Override
    public String uriThrough(List<TcpProxy> proxies) {
        if (proxies.size() != 2) {
            throw new IllegalArgumentException("expected one proxy per data node (primary, replica), got " + proxies.size());
        }
        return uri() + "&natMap=127.0.0.1:" + primary.port() + "=127.0.0.1:" + proxies.get(0).port()
                + ",127.0.0.1:" + replica.port() + "=127.0.0.1:" + proxies.get(1).port();
    }

    @Override
    public Set<Fault> faults() {
        return waitReplicas == 0
                ? EnumSet.of(Fault.HOLDER_KILL, Fault.HOLDER_PAUSE, Fault.CLIENT_PARTITION, Fault.LOST_REPLY, Fault.FAILOVER)
                : EnumSet.of(Fault.HOLDER_KILL, Fault.HOLDER_PAUSE, Fault.CLIENT_PARTITION, Fault.LOST_REPLY,
                        Fault.NODE_KILL, Fault.FAILOVER);
    }

    /** The node Sentinel names as primary now. */
    private ServerProcess currentPrimary() {
        String address = Servers.redisCommand(sentinel.port(), "SENTINEL", "get-master-addr-by-name", MASTER);
        return address.endsWith("\n" + replica.port()) ? replica : primary;
    }

    /** Kills the primary (with WAIT, a loss the deployment is built to survive) and awaits the promotion. */
    @Override
    public void killNode() {
        if (waitReplicas == 0) {
            throw new UnsupportedOperationException(name() + " may lose a grant with its primary: that is failOver()");
        }
        failOver();
    }

    /**
     * Starts the killed node again as a replica of the new primary, which WAIT needs. Sentinel would make it one too,
     * but only at its next look at the node (its INFO every 10 s) and then a full sync: on a loaded machine that took
     * more than 30 s once (R9.6 of the Redisson class failed in CI). The node is told at once, as an operator restarting
     * a failed primary does; Sentinel agrees with it.
     */
    @Override
    public void restartNode() {
        if (killed == null) {
            return;
        }
        ServerProcess restarted = killed;
        killed = null;
        restarted.restart();
        ServerProcess newPrimary = currentPrimary();
        if (newPrimary != restarted) {
            Servers.redisCommand(restarted.port(), "REPLICAOF", "127.0.0.1", Integer.toString(newPrimary.port()));
        }
        Servers.awaitState("the restarted node replicating from the new primary", Duration.ofSeconds(30),
                () -> Servers.redisCommand(restarted.port(), "INFO", "replication").contains("master_link_status:up"));
    }

    private void awaitPromotion(ServerProcess survivor) {
        String port = Integer.toString(survivor.port());
        Servers.awaitState("Sentinel promoting the replica", Duration.ofSeconds(30),
                () -> Servers.redisCommand(sentinel.port(), "SENTINEL", "get-master-addr-by-name", MASTER).endsWith(port)
                        && Servers.redisCommand(survivor.port(), "INFO", "replication").contains("role:master"));
    }

    /**
     * Writes to the primary stop reaching the replica: the replication link's proxy goes silent while the
     * replica still replicates through it; after a failover Sentinel points the replica at the primary's real
     * port, so then the replica's connections to the primary are dropped instead.
     */
    @Override
    public void stopReplication() {
        if (!failedOver) {
            replicationLink.blackhole();
            return;
        }
        ServerProcess current = currentPrimary();
        ServerProcess follower = current == primary ? replica : primary;
        if (firewall == null) {
            firewall = LoopbackFirewall.open();
        }
        firewall.cutProcess(follower.pid(), current.port());
    }

    /** Lets the replica catch up again after {@link #stopReplication()}. */
    @Override
    public void resumeReplication() {
        replicationLink.heal();
        if (firewall != null) {
            firewall.heal();
        }
    }

    /** Kills the primary and returns once Sentinel promoted the other node and it serves as primary. */
    @Override
    public void failOver() {
        ServerProcess victim = currentPrimary();
        victim.kill();
        killed = victim;
        failedOver = true;
        awaitPromotion(victim == primary ? replica : primary);
    }

    @Override
    public void close() {
        List<AutoCloseable> all = new ArrayList<>(List.of(primary, replicationLink, replica, sentinel));
        if (firewall != null) {
            all.add(firewall);
        }
        closeReversed(all);
    }

    private static void closeReversed(List<AutoCloseable> resources) {
        List<AutoCloseable> reversed = new ArrayList<>(resources);
        java.util.Collections.reverse(reversed);
        Servers.closeAll(reversed);
    }
}
