package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.tck.ListingTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Listing held locks by prefix on a Sentinel-monitored primary (Jedis): the listing reads the primary. */
class SentinelListingTest extends ListingTck {

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
        return LockClient.open(group.uri());
    }
}
