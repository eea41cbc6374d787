package io.locksmith.zookeeper;

import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.RegistryTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The registry contract (used by the migration phase guard) on an in-JVM ZooKeeper server. */
class ZooKeeperRegistryTest extends RegistryTck {

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
    protected LockProvider newProvider() {
        return new ZooKeeperLockProviderFactory().create(LockUri.parse(server.uri()),
                new ProviderContext("registry-test", (grant, reason, cause) -> { }));
    }
}
