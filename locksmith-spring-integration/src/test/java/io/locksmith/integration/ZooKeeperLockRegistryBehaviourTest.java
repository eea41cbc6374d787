package io.locksmith.integration;

import io.locksmith.zookeeper.EmbeddedZooKeeper;

/** The registry's behaviours on one ZooKeeper server (Curator), in this JVM. */
class ZooKeeperLockRegistryBehaviourTest extends LockRegistryBehaviourTest {

    @Override
    protected Server startServer() {
        EmbeddedZooKeeper zooKeeper = EmbeddedZooKeeper.start();
        return Servers.of(zooKeeper, zooKeeper.uri());
    }
}
