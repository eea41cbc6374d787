package io.locksmith.zookeeper;

import io.locksmith.tck.server.ZooKeeperEnsembles;
import io.locksmith.Capability;
import io.locksmith.LockClient;
import io.locksmith.tck.LockTck;
import io.locksmith.tck.TckTiming;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.Set;

/** The full TCK against a three-member in-JVM ZooKeeper ensemble. */
class ZooKeeperEnsembleTckTest extends LockTck {

    private static TestingCluster cluster;
    private static ZooKeeperAdmin admin;

    @BeforeAll
    static void startEnsemble() throws Exception {
        cluster = ZooKeeperEnsembles.of(3);
        cluster.start();
        admin = new ZooKeeperAdmin(cluster.getConnectString(), ZooKeeperSettings.DEFAULT_BASE_PATH);
    }

    @AfterAll
    static void stopEnsemble() throws Exception {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    /** The kit opens its own clients on this URI too: through its SPI fault injector, with a trace id source. */
    @Override
    protected String storeUri() {
        return "zookeeper://" + cluster.getConnectString() + ZooKeeperSettings.DEFAULT_BASE_PATH;
    }

    /** Ends the provider's session on the server (R9.13). */
    @Override
    protected void endStoreSession(io.locksmith.spi.LockProvider storeProvider) {
        ZooKeeperAdmin.endSession((ZooKeeperLockProvider) storeProvider, cluster.getConnectString());
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        admin.dropHolder(lockName);
    }

    /** What docs/ZOOKEEPER.md promises (R8.11). */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return ZooKeeperTckTest.CAPABILITIES;
    }

    /**
     * Twice the default timing (an 800 ms short lease): the kit passes at the defaults on an idle machine, but
     * on a shared 2-core build machine the renewal thread can stall for longer than a 400 ms lease allows.
     */
    @Override
    protected TckTiming timing() {
        return TckTiming.defaults().scaledBy(2);
    }
}
