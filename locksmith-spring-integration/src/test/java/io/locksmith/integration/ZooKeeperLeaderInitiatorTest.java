package io.locksmith.integration;

import io.locksmith.zookeeper.EmbeddedZooKeeper;

/** Three leader candidates on one ZooKeeper server, which runs in the test's JVM. */
class ZooKeeperLeaderInitiatorTest extends LeaderInitiatorAcrossJvmsTest {

    @Override
    protected LockRegistryBehaviourTest.Server startServer() {
        EmbeddedZooKeeper zooKeeper = EmbeddedZooKeeper.start();
        return Servers.of(zooKeeper, zooKeeper.uri());
    }
}
