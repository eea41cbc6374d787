package io.locksmith.example;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.Test;

/**
 * The same application and the same checks as {@link MemStoreApplicationTest}, on a real single-member etcd: only
 * the configuration changes (the {@code etcd} profile's {@code application-etcd.yml}).
 */
class EtcdStoreApplicationTest {

    @Test
    void shipsOrdersUnderTheLockAndExposesMetricsAndHealthOnEtcd() throws Exception {
        try (ServerProcess etcd = StoreServers.etcd()) {
            OrderApplicationScenario.runAndCheck("etcd", "--spring.profiles.active=etcd", "--etcd.port=" + etcd.port());
        }
    }
}
