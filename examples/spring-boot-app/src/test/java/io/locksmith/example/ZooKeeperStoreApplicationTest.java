package io.locksmith.example;

import io.locksmith.tck.server.FreePorts;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * The same application and the same checks as {@link MemStoreApplicationTest}, on a real ZooKeeper server (run in
 * this JVM): only the configuration changes (the {@code zookeeper} profile's {@code application-zookeeper.yml}).
 */
class ZooKeeperStoreApplicationTest {

    @Test
    void shipsOrdersUnderTheLockAndExposesMetricsAndHealthOnZooKeeper() throws Exception {
        try (TestingServer zookeeper = new TestingServer(FreePorts.next(), true)) {
            OrderApplicationScenario.runAndCheck("zookeeper", "--spring.profiles.active=zookeeper",
                    "--zookeeper.port=" + zookeeper.getPort());
        }
    }
}
