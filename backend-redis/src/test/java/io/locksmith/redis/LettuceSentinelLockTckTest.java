package io.locksmith.redis;

import io.locksmith.Capability;
import io.locksmith.tck.StoreTck;
import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.Set;

/** The full TCK on a Sentinel-monitored primary with a replica through Lettuce ({@code ?client=lettuce}). */
class LettuceSentinelLockTckTest extends StoreTck implements SemaphoreKit, ReadWriteKit, ElectionKit {

    static SentinelGroup group;

    @BeforeAll
    static void startGroup() {
        group = new SentinelGroup();
    }

    @AfterAll
    static void stopGroup() {
        if (group != null) {
            group.close();
        }
    }

    /** Every client of the kits is opened on this URI, the kit's own through its SPI fault injector too. */
    @Override
    protected String storeUri() {
        return group.uri() + "?client=lettuce";
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        group.currentPrimary().expireNow(lockName);
    }

    /** What docs/REDIS.md promises of this deployment (R8.11). */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return RedisTckSupport.CAPABILITIES;
    }
}
