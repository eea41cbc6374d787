package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.zookeeper.EmbeddedZooKeeper;

import java.util.EnumSet;
import java.util.Set;

/**
 * One in-JVM ZooKeeper server ({@link EmbeddedZooKeeper}, tick 200 ms): {@code zookeeper://}. Clients ask for a
 * 1 s session, so a dead or frozen holder's ephemeral node goes within about a second.
 */
public final class ZooKeeperDeployment implements Deployment {

    /** The fault rules' timing: a 1 s short lease, since the 1 s session (not the lease) frees a dead holder's node. */
    public static final TckTiming TIMING = TckTiming.defaults().scaledBy(2.5);

    /** A short session: a killed holder's node is deleted when its session expires. */
    static final String PARAMETERS = "sessionTimeout=1s&connectionTimeout=1s";

    private final EmbeddedZooKeeper server = EmbeddedZooKeeper.start();

    @Override
    public String name() {
        return "zookeeper-single";
    }

    @Override
    public String description() {
        return "one ZooKeeper 3.9 server (in-JVM, tick 200 ms), Curator client, 1 s sessions";
    }

    @Override
    public String uri() {
        return "zookeeper://127.0.0.1:" + server.port() + "/locksmith?" + PARAMETERS;
    }

    @Override
    public Set<Fault> faults() {
        return EnumSet.of(Fault.HOLDER_KILL, Fault.HOLDER_PAUSE, Fault.CLIENT_PARTITION, Fault.LOST_REPLY);
    }

    @Override
    public TckTiming timing() {
        return TIMING;
    }

    @Override
    public String proxiedAddress() {
        return "127.0.0.1:" + server.port();
    }

    @Override
    public String uriThrough(TcpProxy proxy) {
        return "zookeeper://127.0.0.1:" + proxy.port() + "/locksmith?" + PARAMETERS;
    }

    /**
     * Stopped and started again on its port and data directory ({@link EmbeddedZooKeeper#restart()}): its nodes and
     * the sessions whose clients come back within their timeout survive, as on a real server's crash and recovery.
     */
    @Override
    public void restartStore() {
        server.restart();
    }

    @Override
    public void close() {
        server.close();
    }
}
