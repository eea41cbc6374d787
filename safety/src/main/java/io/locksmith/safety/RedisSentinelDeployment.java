package io.locksmith.safety;

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
 */
public final class RedisSentinelDeployment implements Deployment {

    static final String MASTER = "mymaster";

    private final ServerProcess primary;
    private final TcpProxy replicationLink;
    private final ServerProcess replica;
    private final ServerProcess sentinel;

    public RedisSentinelDeployment() {
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
        return "redis-sentinel";
    }

    @Override
    public String description() {
        return "redis-server primary + 1 asynchronous replica + 1 Sentinel (quorum 1, down after 1 s), waitReplicas=0"
                + " (fenced only)";
    }

    @Override
    public String uri() {
        // Fenced only: with one replica and WAIT (the default), a failover leaves no replica to acknowledge and
        // the promoted primary grants nothing; this deployment shows the fenced double grant of rule R9.7.
        return "redis-sentinel://127.0.0.1:" + sentinel.port() + "/" + MASTER + "?" + RedisSingleDeployment.TIMEOUT
                + "&waitReplicas=0";
    }

    @Override
    public Set<Fault> faults() {
        return EnumSet.of(Fault.HOLDER_KILL, Fault.HOLDER_PAUSE, Fault.FAILOVER);
    }

    @Override
    public void stopReplication() {
        replicationLink.blackhole();
    }

    @Override
    public void failOver() {
        primary.kill();
        String replicaPort = Integer.toString(replica.port());
        Servers.awaitState("Sentinel promoting the replica", Duration.ofSeconds(30),
                () -> Servers.redisCommand(sentinel.port(), "SENTINEL", "get-master-addr-by-name", MASTER).endsWith(replicaPort)
                        && Servers.redisCommand(replica.port(), "INFO", "replication").contains("role:master"));
    }

    @Override
    public void close() {
        closeReversed(new ArrayList<>(List.of(primary, replicationLink, replica, sentinel)));
    }

    private static void closeReversed(List<AutoCloseable> resources) {
        List<AutoCloseable> reversed = new ArrayList<>(resources);
        java.util.Collections.reverse(reversed);
        Servers.closeAll(reversed);
    }
}
