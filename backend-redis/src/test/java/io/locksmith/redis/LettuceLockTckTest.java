package io.locksmith.redis;

import io.locksmith.Capability;
import io.locksmith.tck.StoreTck;
import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.Set;

/** The full TCK on one redis-server through Lettuce ({@code ?client=lettuce}). */
class LettuceLockTckTest extends StoreTck implements SemaphoreKit, ReadWriteKit, ElectionKit {

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

    /** Every client of the kits is opened on this URI, the kit's own through its SPI fault injector too. */
    @Override
    protected String storeUri() {
        return "redis://" + server.address() + "?client=lettuce";
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        server.expireNow(lockName);
    }

    /** What docs/REDIS.md promises of this deployment (R8.11). */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return RedisTckSupport.CAPABILITIES;
    }
}
