package io.locksmith.shedlock;

import io.locksmith.LockClient;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's kit on one redis-server (Jedis). */
class RedisShedLockKitTest extends LocksmithShedLockKitTest {

    static ServerProcess redis;
    static LockClient client;

    @BeforeAll
    static void start() {
        redis = StoreServers.redis();
        client = LockClient.open("redis://127.0.0.1:" + redis.port());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected LockClient client() {
        return client;
    }
}
