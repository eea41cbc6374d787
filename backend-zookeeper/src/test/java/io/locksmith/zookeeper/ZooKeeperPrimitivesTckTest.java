package io.locksmith.zookeeper;

import io.locksmith.tck.PrimitivesTck;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The semaphore, read-write lock and election kit against one in-JVM ZooKeeper server. */
class ZooKeeperPrimitivesTckTest extends PrimitivesTck {

    private static EmbeddedZooKeeper server;
    private static ZooKeeperAdmin admin;

    @BeforeAll
    static void startServer() throws InterruptedException {
        server = EmbeddedZooKeeper.start();
        admin = new ZooKeeperAdmin(server.connectString(), ZooKeeperSettings.DEFAULT_BASE_PATH);
    }

    @AfterAll
    static void stopServer() {
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected String storeUri() {
        return server.uri();
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        admin.dropHolder(lockName);
    }

    /** As ZooKeeperTckTest: twice the default timing on a shared 2-core build machine. */
    @Override
    protected TckTiming timing() {
        return TckTiming.defaults().scaledBy(2);
    }
}
