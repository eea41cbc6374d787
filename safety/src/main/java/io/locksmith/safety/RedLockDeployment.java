package io.locksmith.safety;

import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.tck.server.ServerProcess;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * RedLock over independent redis-server primaries (persistence off): {@code redlock://}. {@link #killNode()}
 * kills one of them, a minority; {@link #restartNode()} brings it back empty, which RedLock allows only after
 * the longest lease time has passed (its "delayed restart"), so callers wait that long first.
 */
public final class RedLockDeployment implements Deployment {

    private final List<ServerProcess> nodes = new ArrayList<>();

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

    @Override
    public void close() {
        Servers.closeAll(nodes);
    }
}
