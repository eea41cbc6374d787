package io.locksmith.safety;

import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.tck.server.RedisCluster;
import io.locksmith.tck.server.ServerProcess;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A Redis Cluster of three primaries with one replica each ({@code redis-cluster://}, Jedis), every client waiting
 * for its shard's replica to acknowledge each grant and renewal ({@code WAIT 1}, the cluster's default), so the
 * deployment is built to survive the loss of a primary: its replica, which has every grant a client was told of, is
 * promoted by the other primaries' vote a second or two after the kill ({@code cluster-node-timeout} 1 s).
 *
 * <p>The first primary serves every slot but two ({@link RedisCluster.SlotLayout#FIRST_SHARD}): the locks of a run
 * are practically all on its shard, so {@link #killNode()} kills the primary they are on, while the other two, one
 * slot each, still vote. The kit's tests on an even spread are in backend-redis ({@code ClusterLockTckTest},
 * {@code ClusterFaultTest}).
 */
public final class RedisClusterDeployment implements Deployment {

    /** A slot of the first shard: the one whose primary {@link #killNode()} kills. */
    private static final int FIRST_SHARD_SLOT = 0;

    private final RedisCluster cluster;
    private ServerProcess killed;

    public RedisClusterDeployment() {
        cluster = RedisCluster.start(3, 1, RedisCluster.DEFAULT_NODE_TIMEOUT, RedisCluster.SlotLayout.FIRST_SHARD);
    }

    @Override
    public String name() {
        return "redis-cluster";
    }

    @Override
    public String description() {
        return "Redis Cluster, 3 primaries + 1 replica each (cluster-node-timeout 1 s), the locks on the first shard;"
                + " every write waits for the shard's replica (WAIT 1, the default)";
    }

    @Override
    public String uri() {
        return cluster.uri() + "?" + RedisSingleDeployment.TIMEOUT;
    }

    /** Every node: a client reaches each primary (and, after a failover, each promoted replica) through its proxy. */
    @Override
    public List<String> proxiedAddresses() {
        return cluster.nodes().stream().map(node -> "127.0.0.1:" + node.port()).toList();
    }

    /** The nodes announce their real addresses; {@code natMap} maps each to its proxy, as a client behind NAT does. */
    @Override
    public String uriThrough(List<TcpProxy> proxies) {
        List<ServerProcess> nodes = cluster.nodes();
        if (proxies.size() != nodes.size()) {
            throw new IllegalArgumentException("expected one proxy per node (" + nodes.size() + "), got " + proxies.size());
        }
        StringBuilder uri = new StringBuilder("redis-cluster://");
        StringBuilder natMap = new StringBuilder();
        for (int i = 0; i < nodes.size(); i++) {
            uri.append(i == 0 ? "" : ",").append("127.0.0.1:").append(nodes.get(i).port());
            natMap.append(i == 0 ? "" : ",").append("127.0.0.1:").append(nodes.get(i).port())
                    .append("=127.0.0.1:").append(proxies.get(i).port());
        }
        return uri + "?" + RedisSingleDeployment.TIMEOUT + "&natMap=" + natMap;
    }

    @Override
    public Set<Fault> faults() {
        return EnumSet.of(Fault.HOLDER_KILL, Fault.HOLDER_PAUSE, Fault.CLIENT_PARTITION, Fault.LOST_REPLY,
                Fault.NODE_KILL);
    }

    /** Kills the first shard's primary and returns once its replica serves the shard's slots. */
    @Override
    public void killNode() {
        ServerProcess victim = cluster.primaryOf(FIRST_SHARD_SLOT);
        victim.kill();
        killed = victim;
        cluster.awaitPrimaryOf(FIRST_SHARD_SLOT, victim);
    }

    /** Starts the killed node again (empty); the cluster makes it a replica of the promoted one, which WAIT needs. */
    @Override
    public void restartNode() {
        if (killed == null) {
            return;
        }
        ServerProcess restarted = killed;
        killed = null;
        restarted.restart();
        cluster.awaitReady();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
