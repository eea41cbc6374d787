package io.locksmith.example;

import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

/**
 * The same application and the same checks as {@link MemStoreApplicationTest}, on a real redis-server: only the
 * configuration changes (the {@code redis} profile's {@code application-redis.yml}).
 */
class RedisStoreApplicationTest {

    @TempDir
    Path workDir;

    @Test
    void shipsOrdersUnderTheLockAndExposesMetricsAndHealthOnRedis() throws Exception {
        int port = FreePorts.next();
        try (ServerProcess redis = ServerProcess.start("redis-" + port, List.of("redis-server", "--port",
                        Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"),
                workDir, port, "apt-get install -y redis-server")) {
            OrderApplicationScenario.runAndCheck("redis", "--spring.profiles.active=redis", "--redis.port=" + redis.port());
        }
    }
}
