package io.locksmith.redis;

import io.locksmith.LockClient;

/** The lock rules on RedLock over three redis-servers through Redisson. */
class RedissonRedLockTest extends RedLockTest {

    @Override
    protected LockClient newClient() {
        return LockClient.open(uri() + "?client=redisson");
    }
}
