package io.locksmith.redis;

import io.locksmith.Capability;
import io.locksmith.LockClient;
import io.locksmith.tck.LockTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** The full TCK on RedLock over five redis-servers (Jedis; majority 3). */
class RedLock5TckTest extends LockTck {

    static final List<RedisServer> servers = new ArrayList<>();

    private static void startServers(int count) {
        for (int i = 0; i < count; i++) {
            servers.add(RedisServer.start());
        }
    }

    @BeforeAll
    static void startFive() {
        startServers(5);
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

    /** What docs/REDIS.md promises of this deployment (R8.11). */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return RedisTckSupport.CAPABILITIES;
    }
}
