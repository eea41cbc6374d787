package io.locksmith.zookeeper;

import io.locksmith.LockClient;
import io.locksmith.tck.LockTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The full TCK against one in-JVM ZooKeeper server. */
class ZooKeeperTckTest extends LockTck {

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
    protected LockClient newClient() {
        return LockClient.open(server.uri());
    }

    /** Deletes the holder's node with another session, as an operator or a session expiry would. */
    @Override
    protected void expireBehindClientsBack(String lockName) {
        admin.dropHolder(lockName);
    }
}
