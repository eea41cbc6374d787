package io.locksmith.redis;

import io.locksmith.Capability;
import io.locksmith.tck.StoreTck;
import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** The full TCK on RedLock over three redis-servers through Lettuce ({@code ?client=lettuce}). */
class LettuceRedLockTckTest extends StoreTck implements SemaphoreKit, ReadWriteKit, ElectionKit {

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

    /** Every client of the kits is opened on this URI, the kit's own through its SPI fault injector too. */
    @Override
    protected String storeUri() {
        return "redlock://" + servers.stream().map(RedisServer::address).collect(Collectors.joining(",")) + "?client=lettuce";
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        RedisServer.expireMajorityOwner(servers, lockName);
    }

    /** What docs/REDIS.md promises of this deployment (R8.11). */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return RedisTckSupport.REDLOCK_CAPABILITIES;
    }
}
