package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.tck.ListingTck;
import io.locksmith.tck.LockTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;

/** The full TCK on RedLock over three redis-servers (Jedis). */
class RedLockTckTest extends LockTck {

    static final List<RedisServer> servers = new ArrayList<>();

    private static void startServers(int count) {
        for (int i = 0; i < count; i++) {
            servers.add(RedisServer.start());
        }
    }

    @BeforeAll
    static void startThree() {
        startServers(3);
    }

    @AfterAll
    static void stopServers() {
        servers.forEach(RedisServer::close);
        servers.clear();
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    /** The kit opens its own clients on this URI too: through its SPI fault injector, with a trace id source. */
    @Override
    protected String storeUri() {
        return "redlock://" + servers.stream().map(RedisServer::address).collect(Collectors.joining(","));
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        RedisServer.expireMajorityOwner(servers, lockName);
    }

    /**
     * The listing kit ({@link ListingTck}) on the same three redis-servers, started once for every kit of this
     * class.
     */
    @Nested
    class Listing extends ListingTck {
        @Override
        protected LockClient newClient() {
            return LockClient.open(storeUri());
        }
    }
}
