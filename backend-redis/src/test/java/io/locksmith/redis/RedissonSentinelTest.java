package io.locksmith.redis;

import io.locksmith.LockClient;

/** The lock rules on a Sentinel-monitored primary through Redisson. */
class RedissonSentinelTest extends SentinelTest {

    @Override
    protected LockClient newClient() {
        return LockClient.open(group.uri() + "?client=redisson");
    }
}
