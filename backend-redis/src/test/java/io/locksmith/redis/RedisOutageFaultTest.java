package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.tck.fault.OutageFaultTck;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The outage rules (R9.14, R9.15) on one redis-server over Jedis, killed with SIGKILL and restarted on its port:
 * Jedis reports the refused connection ({@code JedisConnectionException} caused by {@code ConnectException}).
 */
class RedisOutageFaultTest extends OutageFaultTck {

    static ServerProcess redis;

    @BeforeAll
    static void startRedis() {
        redis = StoreServers.redis();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open("redis://127.0.0.1:" + redis.port() + "?timeout=1s");
    }

    @Override
    protected void killStore() {
        redis.kill();
    }

    @Override
    protected void restartStore() {
        redis.restart();
    }
}
