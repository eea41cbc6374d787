package io.locksmith.redis;

import io.locksmith.LockClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The lock rules on one redis-server through Jedis. */
class JedisSingleNodeTest extends RedisLockContract {

    static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open("redis://" + server.address() + "/0");
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        server.expireNow(lockName);
    }
}
