package io.locksmith.safety;

import io.locksmith.tck.server.ZooKeeperEnsembles;
import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.tck.TckTiming;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A ZooKeeper ensemble of three servers in this JVM (curator-test's {@link TestingCluster}):
 * {@link #killNode()} kills the leader, {@link #restartNode()} brings it back.
 */
public final class ZooKeeperEnsembleDeployment implements Deployment {

    /** The fault rules' timing: 4 s sessions and an election after a leader's death need 10 s of slack. */
    public static final TckTiming TIMING = TckTiming.defaults().scaledBy(5);

    private final TestingCluster cluster;
    private InstanceSpec killed;

    public ZooKeeperEnsembleDeployment() {
        cluster = ZooKeeperEnsembles.of(3);
        try {
            cluster.start();
        } catch (Exception e) {
            close();
            throw new IllegalStateException("cannot start a 3-server ZooKeeper ensemble", e);
        }
        Servers.awaitState("a ZooKeeper leader", Duration.ofSeconds(30), () -> leader() != null);
    }

    @Override
    public String name() {
        return "zookeeper-3";
    }

    @Override
    public String description() {
        return "ZooKeeper ensemble of 3 servers (curator-test TestingCluster), Curator client, 4 s sessions";
    }

    @Override
    public String uri() {
        return "zookeeper://" + cluster.getConnectString() + "/locksmith?sessionTimeout=4s&connectionTimeout=2s";
    }

    @Override
    public Set<Fault> faults() {
        return EnumSet.of(Fault.HOLDER_KILL, Fault.HOLDER_PAUSE, Fault.CLIENT_PARTITION, Fault.LOST_REPLY,
                Fault.NODE_KILL);
    }

    @Override
    public TckTiming timing() {
        return TIMING;
    }

    @Override
    public List<String> proxiedAddresses() {
        return cluster.getInstances().stream().map(spec -> "127.0.0.1:" + spec.getPort()).toList();
    }

    @Override
    public String uriThrough(List<TcpProxy> proxies) {
        return "zookeeper://" + proxies.stream().map(proxy -> "127.0.0.1:" + proxy.port())
                .collect(Collectors.joining(",")) + "/locksmith?sessionTimeout=4s&connectionTimeout=2s";
    }

    private InstanceSpec leader() {
        for (InstanceSpec spec : cluster.getInstances()) {
            if (Servers.zooKeeperWord(spec.getPort(), "srvr").contains("Mode: leader")) {
                return spec;
            }
        }
        return null;
    }

    @Override
    public void killNode() {
        InstanceSpec leader = leader();
        if (leader == null) {
            throw new IllegalStateException("the ensemble has no leader to kill");
        }
        try {
            if (!cluster.killServer(leader)) {
                throw new IllegalStateException("could not kill ZooKeeper server " + leader);
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not kill ZooKeeper server " + leader, e);
        }
        killed = leader;
    }

    @Override
    public void restartNode() {
        if (killed == null) {
            return;
        }
        try {
            cluster.restartServer(killed);
        } catch (Exception e) {
            throw new IllegalStateException("could not restart ZooKeeper server " + killed, e);
        }
        killed = null;
    }

    @Override
    public void close() {
        try {
            cluster.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
