package io.locksmith.redis;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lock rules on a Sentinel-monitored primary through Redisson (Jedis runs the full TCK on Sentinel:
 * {@link SentinelLockTckTest}), and replica acknowledgement through both transports.
 */
class RedissonSentinelTest extends RedisLockContract {

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
        return LockClient.open(group.uri() + "?client=redisson");
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        group.currentPrimary().expireNow(lockName);
    }

    @Test
    void anAcquireTheReplicaAcknowledgedIsOnTheReplica(TestInfo info) {
        for (String client : new String[] {"jedis", "redisson"}) {
            String name = unique(info) + ":" + client;
            try (LockClient locks = LockClient.open(group.uri() + "?waitReplicas=1&waitTimeout=2s&client=" + client);
                 Lease lease = locks.lock(name).acquire(Duration.ofSeconds(2));
                 Jedis replica = group.replica.jedis()) {
                assertTrue(replica.exists(RedisLockKeys.lockKey(name)), client + ": WAIT returned before the replica had it");
                assertEquals(Long.toString(lease.fencingToken()), replica.hget(RedisLockKeys.lockKey(name), "token"));
            }
        }
    }
}
