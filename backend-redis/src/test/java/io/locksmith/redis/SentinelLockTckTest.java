package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.tck.ListingTck;
import io.locksmith.tck.LockTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/** The full TCK on a Sentinel-monitored primary with a replica (Jedis). */
class SentinelLockTckTest extends LockTck {

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

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    /** The kit opens its own clients on this URI too: through its SPI fault injector, with a trace id source. */
    @Override
    protected String storeUri() {
        return group.uri();
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        group.currentPrimary().expireNow(lockName);
    }

    /** The listing kit ({@link ListingTck}) on the same Sentinel group, started once for every kit of this class. */
    @Nested
    class Listing extends ListingTck {
        @Override
        protected LockClient newClient() {
            return LockClient.open(storeUri());
        }
    }
}
