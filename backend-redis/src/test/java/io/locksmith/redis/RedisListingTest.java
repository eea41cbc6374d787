package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.tck.ListingTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Listing held locks by prefix on one redis-server through Jedis (lockctl inspect --prefix). */
class RedisListingTest extends ListingTck {

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
        return LockClient.open("redis://" + server.address());
    }
}
