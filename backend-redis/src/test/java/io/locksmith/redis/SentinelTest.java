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

    /** The group's URI with these parameters. */
    protected String uri(String parameters) {
        return group.uri() + (parameters.isEmpty() ? "" : "?" + parameters);
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(uri(""));
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        group.currentPrimary().expireNow(lockName);
    }

    @Test
    void anAcquireTheReplicaAcknowledgedIsOnTheReplica(TestInfo info) {
        String name = unique(info);
        try (LockClient locks = LockClient.open(uri("waitReplicas=1&waitTimeout=2s"))) {
            try (Lease lease = locks.lock(name).acquire(Duration.ofSeconds(2))) {
                try (Jedis replica = group.replica.jedis()) {
                    assertTrue(replica.exists(RedisLockKeys.lockKey(name)), "WAIT returned before the replica had it");
                    assertEquals(Long.toString(lease.fencingToken()), replica.hget(RedisLockKeys.lockKey(name), "token"));
                }
            }
        }
    }
}
