package io.locksmith.redis;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
    void byDefaultAnAcquireWaitsForAReplicaAndWaitReplicas0OptsOut(TestInfo info) {
        for (String client : new String[] {"jedis", "redisson"}) {
            String name = unique(info) + ":" + client;
            try (LockClient safe = LockClient.open(group.uri() + "?client=" + client);
                 LockClient fencedOnly = LockClient.open(group.uri() + "?waitReplicas=0&client=" + client)) {
                try (Lease lease = safe.lock(name).acquire(Duration.ofSeconds(2));
                     Jedis replica = group.replica.jedis()) {
                    assertTrue(replica.exists(RedisLockKeys.lockKey(name)), client + ": granted before the replica had it");
                }
                group.replica.process().pause();
                try {
                    LockStoreException e = assertThrows(LockStoreException.class, () -> safe.lock(name).tryAcquire());
                    assertTrue(e.getMessage().contains("0 of 1 replica(s) acknowledged"), e.getMessage());
                    assertTrue(fencedOnly.inspect(name).isEmpty(), client + ": an unacknowledged grant stayed behind");
                    try (Lease unacknowledged = fencedOnly.lock(name).tryAcquire().orElseThrow()) {
                        assertTrue(unacknowledged.isHeld());
                    }
                } finally {
                    group.replica.process().resume();
                }
            }
        }
    }

    /**
     * A renewal the primary made but no replica acknowledged does not move the holder's deadline: the holder is
     * told when the lease of its last acknowledged renewal runs out, while the primary still has the lock.
     */
    @Test
    void aRenewalNoReplicaAcknowledgedDoesNotExtendTheLease(TestInfo info) {
        String name = unique(info);
        try (LockClient locks = LockClient.open(group.uri() + "?lease=1500ms")) {
            Lease lease = locks.lock(name).acquire(Duration.ofSeconds(2));
            java.util.concurrent.atomic.AtomicReference<io.locksmith.LeaseLostEvent> lost =
                    new java.util.concurrent.atomic.AtomicReference<>();
            lease.onLost(lost::set);
            long pausedAt = System.nanoTime();
            group.replica.process().pause();
            try {
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() != null);
                long toldAfterMillis = (System.nanoTime() - pausedAt) / 1_000_000;
                assertEquals(io.locksmith.LossReason.STORE_UNREACHABLE, lost.get().reason());
                // The last acknowledged write is the acquire, just before the pause: its lease (1.5 s) ends the
                // holding. A deadline moved by the first unacknowledged renewal (a third of the lease later) would
                // end it 2 s after the pause at the earliest; a renewal counted without acknowledgement, never.
                assertTrue(toldAfterMillis < 2_000, "told " + toldAfterMillis + " ms after the replica stopped: the"
                        + " deadline followed a renewal no replica acknowledged");
                try (Jedis primary = group.currentPrimary().jedis()) {
                    assertTrue(primary.pttl(RedisLockKeys.lockKey(name)) > 0,
                            "the primary kept the lock: the renewals were made there, only not acknowledged");
                }
            } finally {
                group.replica.process().resume();
                lease.close();
            }
        }
    }

    @Test
    void waitTimeoutAloneTunesTheDefaultWaitAndIsRefusedWithWaitReplicas0() {
        try (LockClient locks = LockClient.open(group.uri() + "?waitTimeout=2s")) {
            assertTrue(locks.inspect("locksmith-test:wait-timeout").isEmpty());
        }
        LockConfigurationException e = assertThrows(LockConfigurationException.class,
                () -> LockClient.open(group.uri() + "?waitReplicas=0&waitTimeout=2s"));
        assertTrue(e.getMessage().contains("waitTimeout"), e.getMessage());
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
