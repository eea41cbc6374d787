package io.locksmith.shedlock;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;

/** ShedLock's kit on one redis-server (Jedis). */
class RedisShedLockKitTest extends LocksmithShedLockKitTest {

    @Override
    protected Server startServer() {
        ServerProcess redis = StoreServers.redis();
        return of(redis, "redis://127.0.0.1:" + redis.port());
    }
}
