package io.locksmith.integration;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;

/** Three leader candidates on one redis-server. */
class RedisLeaderInitiatorTest extends LeaderInitiatorAcrossJvmsTest {

    @Override
    protected LockRegistryBehaviourTest.Server startServer() {
        ServerProcess redis = StoreServers.redis();
        return Servers.of(redis, "redis://127.0.0.1:" + redis.port());
    }
}
