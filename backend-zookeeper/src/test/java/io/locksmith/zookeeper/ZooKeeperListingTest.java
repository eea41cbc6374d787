package io.locksmith.zookeeper;

import io.locksmith.LockClient;
import io.locksmith.tck.ListingTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Listing held locks by prefix on an in-JVM ZooKeeper server (lockctl inspect --prefix). */
class ZooKeeperListingTest extends ListingTck {

    private static EmbeddedZooKeeper server;

    @BeforeAll
    static void startServer() {
        server = EmbeddedZooKeeper.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(server.uri());
    }
}
