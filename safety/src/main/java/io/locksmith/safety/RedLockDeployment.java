package io.locksmith.safety;

import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.tck.server.ServerProcess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * RedLock over independent redis-server primaries (persistence off): {@code redlock://}. {@link #killNode()}
 * kills one of them, a minority; {@link #restartNode()} brings it back empty, which RedLock allows only after
 * the longest lease time has passed (its "delayed restart"), so callers wait that long first.
 *
 * <p>A minority partition (rule R9.9): RedLock has no member a client talks to alone, so the minority side is a
 * client that reaches every primary through a {@link TcpProxy} and is then cut from a majority of them (their proxies
 * swallow its packets), while it still reaches the others; the majority side is a client that reaches every primary
 * directly. Both use a {@link #PARTITION_LEASE} lease.
 */
public final class RedLockDeployment implements Deployment {

    /** The lease of the clients of a minority partition: the majority can grant once it ran out on its primaries. */
    static final Duration PARTITION_LEASE = Duration.ofSeconds(2);

    private final List<ServerProcess> nodes = new ArrayList<>();
    private final List<TcpProxy> partitionProxies = new ArrayList<>();

    public RedLockDeployment(int size) {
        try {
            for (int i = 0; i < size; i++) {
                nodes.add(Servers.redis());
            }
        } catch (RuntimeException e) {
            Servers.closeAll(nodes);
            throw e;
        }
    }

    @Override
    public String name() {
        return "redlock-" + nodes.size();
    }

    @Override
    public String description() {
        return "RedLock over " + nodes.size() + " independent redis-server primaries (persistence off), majority "
                + (nodes.size() / 2 + 1);
    }

    @Override
    public String uri() {
        return "redlock://" + nodes.stream().map(n -> "127.0.0.1:" + n.port()).collect(Collectors.joining(","))
                + "?" + RedisSingleDeployment.TIMEOUT;
    }

    @Override
    public List<String> proxiedAddresses() {
        return nodes.stream().map(n -> "127.0.0.1:" + n.port()).toList();
    }

    @Override
    public String uriThrough(List<TcpProxy> proxies) {
        return "redlock://" + proxies.stream().map(p -> "127.0.0.1:" + p.port()).collect(Collectors.joining(","))
                + "?" + RedisSingleDeployment.TIMEOUT;
    }

    @Override
    public Set<Fault> faults() {
        return EnumSet.of(Fault.HOLDER_KILL, Fault.HOLDER_PAUSE, Fault.CLIENT_PARTITION, Fault.LOST_REPLY,
                Fault.NODE_KILL);
    }

    @Override
    public void killNode() {
        nodes.get(0).kill();
    }

    @Override
    public void restartNode() {
        if (!nodes.get(0).isAlive()) {
            nodes.get(0).restart();
        }
    }

    /** A client that reaches every primary through its own proxy, until {@link #isolateMinorityMember()} cuts most of them. */
    @Override
    public synchronized String minorityMemberUri() {
        if (partitionProxies.isEmpty()) {
            for (ServerProcess node : nodes) {
                partitionProxies.add(TcpProxy.start("127.0.0.1", node.port()));
            }
        }
        return uriThrough(partitionProxies).replace(RedisSingleDeployment.TIMEOUT, partitionOptions());
    }

    /** A client that reaches every primary directly. */
    @Override
    public String majorityUri() {
        return uri().replace(RedisSingleDeployment.TIMEOUT, partitionOptions());
    }

    private static String partitionOptions() {
        return RedisSingleDeployment.TIMEOUT + "&lease=" + PARTITION_LEASE.toMillis() + "ms";
    }

    /** Cuts the client of {@link #minorityMemberUri()} from a majority of the primaries; it still reaches the others. */
    @Override
    public synchronized void isolateMinorityMember() {
        if (partitionProxies.isEmpty()) {
            throw new IllegalStateException("minorityMemberUri() was not asked for: there is no client to cut off");
        }
        for (TcpProxy proxy : partitionProxies.subList(0, nodes.size() / 2 + 1)) {
            proxy.blackhole();
        }
    }

    @Override
    public synchronized void healMinorityMember() {
        partitionProxies.forEach(TcpProxy::heal);
    }

    @Override
    public void close() {
        synchronized (this) {
            partitionProxies.forEach(TcpProxy::close);
            partitionProxies.clear();
        }
        Servers.closeAll(nodes);
    }
}
