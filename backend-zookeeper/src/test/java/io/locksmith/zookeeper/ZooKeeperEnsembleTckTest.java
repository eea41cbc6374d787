package io.locksmith.zookeeper;

import io.locksmith.LockClient;
import io.locksmith.tck.LockTck;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The full TCK against a three-member in-JVM ZooKeeper ensemble. */
class ZooKeeperEnsembleTckTest extends LockTck {

    private static TestingCluster cluster;
    private static ZooKeeperAdmin admin;

    @BeforeAll
    static void startEnsemble() throws Exception {
        cluster = new TestingCluster(3);
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
        return LockClient.open("zookeeper://" + cluster.getConnectString() + ZooKeeperSettings.DEFAULT_BASE_PATH);
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        admin.dropHolder(lockName);
    }
}
