package io.locksmith.zookeeper;

import io.locksmith.LockClient;
import io.locksmith.tck.fault.OutageFaultTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The outage rules (R9.14, R9.15) on one ZooKeeper server (in-JVM), stopped as a crash would stop it and started
 * again on its port and data directory. The ZooKeeper client reports only {@code ConnectionLoss}, without a cause; the
 * provider checks, while it has no connection, whether every server of its connect string refuses a TCP connection,
 * and reports that refusal (issue 29: a dead ZooKeeper used to cost every caller its whole bound).
 */
class ZooKeeperOutageFaultTest extends OutageFaultTck {

    static EmbeddedZooKeeper zooKeeper;

    @BeforeAll
    static void startZooKeeper() {
        zooKeeper = EmbeddedZooKeeper.start();
    }

    @AfterAll
    static void stopZooKeeper() {
        zooKeeper.close();
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(zooKeeper.uri() + "?connectionTimeout=1s&sessionTimeout=4s");
    }

    @Override
    protected void killStore() {
        zooKeeper.kill();
    }

    @Override
    protected void restartStore() {
        zooKeeper.restart();
    }
}
