package io.locksmith.reactor;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link ReactiveLocksContract} on a real redis-server (Jedis), one server for the class. */
class RedisReactiveLocksTest extends ReactiveLocksContract {

    private static ServerProcess redis;

    @BeforeAll
    static void startRedis() {
        redis = StoreServers.redis();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Override
    String storeUri() {
        return "redis://127.0.0.1:" + redis.port();
    }
}
