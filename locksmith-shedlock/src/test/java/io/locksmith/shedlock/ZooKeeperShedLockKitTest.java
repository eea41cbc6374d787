package io.locksmith.shedlock;

import io.locksmith.LockClient;
import io.locksmith.zookeeper.EmbeddedZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's kit on one ZooKeeper server (Curator), in this JVM. */
class ZooKeeperShedLockKitTest extends LocksmithShedLockKitTest {

    static EmbeddedZooKeeper zooKeeper;
    static LockClient client;

    @BeforeAll
    static void start() {
        zooKeeper = EmbeddedZooKeeper.start();
        client = LockClient.open(zooKeeper.uri());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    @Override
    protected LockClient client() {
        return client;
    }
}
