package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.ListingTck;
import io.locksmith.tck.LockTck;
import io.locksmith.tck.RegistryTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/** The full TCK on one redis-server through Jedis. */
class JedisLockTckTest extends LockTck {

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
        return LockClient.open(storeUri());
    }

    /** The kit opens its own clients on this URI too: through its SPI fault injector, with a trace id source. */
    @Override
    protected String storeUri() {
        return "redis://" + server.address();
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        server.expireNow(lockName);
    }

    /** The listing kit ({@link ListingTck}) on the same redis-server, started once for every kit of this class. */
    @Nested
    class Listing extends ListingTck {
        @Override
        protected LockClient newClient() {
            return LockClient.open(storeUri());
        }
    }

    /** The registry kit ({@link RegistryTck}) on the same redis-server. */
    @Nested
    class Registry extends RegistryTck {
        @Override
        protected LockProvider newProvider() {
            return new RedisLockProviderFactory().create(LockUri.parse(storeUri()),
                    new ProviderContext("test", (grant, reason, cause) -> { }));
        }
    }
}
