package io.locksmith.redis;

import io.locksmith.LockClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The lock rules on RedLock over three redis-servers through Redisson (Jedis runs the full TCK on RedLock:
 * {@link RedLockTckTest}).
 */
class RedissonRedLockTest extends RedisLockContract {

    static final List<RedisServer> servers = new ArrayList<>();

    @BeforeAll
    static void startServers() {
        for (int i = 0; i < 3; i++) {
            servers.add(RedisServer.start());
        }
    }

    @AfterAll
    static void stopServers() {
        servers.forEach(RedisServer::close);
        servers.clear();
    }

    static String uri() {
        return "redlock://" + servers.stream().map(RedisServer::address).collect(Collectors.joining(","));
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(uri() + "?client=redisson");
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        RedisServer.expireMajorityOwner(servers, lockName);
    }
}
