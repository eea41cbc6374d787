package io.locksmith.shedlock;

import io.locksmith.zookeeper.EmbeddedZooKeeper;

/** ShedLock's kit on one ZooKeeper server (Curator), in this JVM. */
class ZooKeeperShedLockKitTest extends LocksmithShedLockKitTest {

    @Override
    protected Server startServer() {
        EmbeddedZooKeeper zooKeeper = EmbeddedZooKeeper.start();
        return new Server() {
            @Override
            public String uri() {
                return zooKeeper.uri();
            }

            @Override
            public void close() {
                zooKeeper.close();
            }
        };
    }
}
