package io.locksmith.integration;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;

/** The registry's behaviours on one redis-server (Jedis). */
class RedisLockRegistryBehaviourTest extends LockRegistryBehaviourTest {

    @Override
    protected Server startServer() {
        ServerProcess redis = StoreServers.redis();
        return Servers.of(redis, "redis://127.0.0.1:" + redis.port());
    }
}
