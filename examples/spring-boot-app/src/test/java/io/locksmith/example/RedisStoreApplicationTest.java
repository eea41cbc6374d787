package io.locksmith.example;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.Test;

/**
 * The same application and the same checks as {@link MemStoreApplicationTest}, on a real redis-server: only the
 * configuration changes (the {@code redis} profile's {@code application-redis.yml}).
 */
class RedisStoreApplicationTest {

    @Test
    void shipsOrdersUnderTheLockAndExposesMetricsAndHealthOnRedis() throws Exception {
        try (ServerProcess redis = StoreServers.redis()) {
            OrderApplicationScenario.runAndCheck("redis", "--spring.profiles.active=redis", "--redis.port=" + redis.port());
        }
    }
}
