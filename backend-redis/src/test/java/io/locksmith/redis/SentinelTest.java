package io.locksmith.redis;

import io.locksmith.LockClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The lock rules on a Sentinel-monitored primary through Jedis. */
class SentinelTest extends RedisLockContract {

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

    @Override
    protected void expireBehindClientsBack(String lockName) {
        group.currentPrimary().expireNow(lockName);
    }
}
