package io.locksmith.redis;

import io.locksmith.Capability;
import io.locksmith.LockClient;
import io.locksmith.tck.LockTck;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** The full TCK on RedLock over five redis-servers (Jedis; majority 3), the primitives kit included. */
class RedLock5TckTest extends LockTck implements SemaphoreKit, ReadWriteKit, ElectionKit {

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

    /**
     * Half as much time again as the defaults (a 600 ms short lease): each acquire and renewal here is a majority of
     * five servers, the acquire asking them one after another and then raising the fence on a majority, so a renewal
     * takes several round trips. With the default 400 ms lease, renewed every third of it, a build on a loaded
     * 2-core machine (load 8-10) twice lost a renewing lease inside one lease (R6.2): a pause of the test JVM, not
     * a fault of the store.
     */
    @Override
    protected TckTiming timing() {
        return TckTiming.defaults().scaledBy(1.5);
    }

    /** What docs/REDIS.md promises of this deployment (R8.11). */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return RedisTckSupport.REDLOCK_CAPABILITIES;
    }
}
