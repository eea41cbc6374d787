package io.locksmith.redis;

import io.locksmith.tck.PrimitivesTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The semaphore, read-write lock and election kit on a Sentinel-monitored primary with a replica (Jedis). */
class SentinelPrimitivesTckTest extends PrimitivesTck {

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
    protected String storeUri() {
        return group.uri();
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        group.currentPrimary().expireNow(lockName);
    }
}
