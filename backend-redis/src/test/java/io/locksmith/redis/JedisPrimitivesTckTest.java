package io.locksmith.redis;

import io.locksmith.tck.PrimitivesTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The semaphore, read-write lock and election kit on one redis-server through Jedis. */
class JedisPrimitivesTckTest extends PrimitivesTck {

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
    protected String storeUri() {
        return "redis://" + server.address();
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        server.expireNow(lockName);
    }
}
