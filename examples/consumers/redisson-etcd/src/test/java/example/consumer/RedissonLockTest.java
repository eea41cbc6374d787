package example.consumer;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A lock on a real redis-server through locksmith-redis with ?client=redisson, jetcd on the same class path. */
class RedissonLockTest {

    private static ServerProcess redis;

    @BeforeAll
    static void startRedis() {
        redis = StoreServers.redis();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void lockIsExclusiveAndHandedOver() {
        LockHandover.check("redis://127.0.0.1:" + redis.port() + "?client=redisson", "redisson");
    }
}
