package io.locksmith.example;

import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

/**
 * The same application and the same checks as {@link MemStoreApplicationTest}, on a real single-member etcd: only
 * the configuration changes (the {@code etcd} profile's {@code application-etcd.yml}).
 */
class EtcdStoreApplicationTest {

    @TempDir
    Path workDir;

    @Test
    void shipsOrdersUnderTheLockAndExposesMetricsAndHealthOnEtcd() throws Exception {
        int port = FreePorts.next();
        int peerPort = FreePorts.next();
        try (ServerProcess etcd = ServerProcess.start("etcd-" + port, List.of("etcd", "--name", "example",
                        "--data-dir", workDir.resolve("data").toString(),
                        "--listen-client-urls", "http://127.0.0.1:" + port,
                        "--advertise-client-urls", "http://127.0.0.1:" + port,
                        "--listen-peer-urls", "http://127.0.0.1:" + peerPort,
                        "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPort,
                        "--initial-cluster", "example=http://127.0.0.1:" + peerPort,
                        "--log-level", "warn"),
                workDir, port, "apt-get install -y etcd-server")) {
            OrderApplicationScenario.runAndCheck("etcd", "--spring.profiles.active=etcd", "--etcd.port=" + etcd.port());
        }
    }
}
