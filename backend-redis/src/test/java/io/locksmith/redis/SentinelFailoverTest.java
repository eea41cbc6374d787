package io.locksmith.redis;

import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.LossReason;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The primary is killed right after a grant and Sentinel promotes the replica. Either the replica had the
 * lock and it survives, or it did not, a second holder appears, and fencing stops the first one's writes;
 * in both cases no stale write is accepted, and a lost lock is reported to its holder.
 */
class SentinelFailoverTest {

    private static final LockOptions LONG_RENEWING = LockOptions.builder().leaseTime(Duration.ofSeconds(8)).renewing().build();

    private SentinelGroup group;

    @BeforeEach
    void start() {
        group = new SentinelGroup();
    }

    @AfterEach
    void stop() {
        if (group != null) {
            group.close();
        }
    }

    /** A resource that accepts a write only with a token not below the highest it saw. */
    static final class FencedRegister {
        private long highest = Long.MIN_VALUE;
        private final List<String> rejected = new ArrayList<>();

        synchronized boolean write(long token, String writer) {
            if (token < highest) {
                rejected.add(writer + " with token " + token + " after " + highest);
                return false;
            }
            highest = token;
            return true;
        }

        synchronized List<String> rejected() {
            return List.copyOf(rejected);
        }
    }

    @Test
    void aLockTheReplicaAcknowledgedSurvivesTheFailover(TestInfo info) {
        String name = RedisLockContract.unique(info);
        FencedRegister register = new FencedRegister();
        try (LockClient first = LockClient.open(group.uri() + "?waitReplicas=1&waitTimeout=2s&timeout=500ms");
             // One replica: once it is promoted none is left to acknowledge, so the second client opts out of
             // WAIT to use the promoted primary alone (with the default it could not lock until a replica returns).
             LockClient second = LockClient.open(group.uri() + "?waitReplicas=0&timeout=500ms")) {
            Lease lease = first.lock(name, LONG_RENEWING).acquire(Duration.ofSeconds(2));
            assertTrue(register.write(lease.fencingToken(), "first"));

            group.killPrimaryAndAwaitFailover();
            awaitFollowsFailover(second, name);

            assertTrue(second.lock(name).tryAcquire(Duration.ofSeconds(1)).isEmpty(),
                    "the promoted replica forgot a lock it had acknowledged");
            assertEquals(first.clientId(), second.inspect(name).orElseThrow().holder().clientId());
            // The holder's renewal follows the failover to the new primary.
            await().atMost(Duration.ofSeconds(10)).until(() -> remainingMillis(second, name) > 6_000);
            assertTrue(lease.isHeld());
            assertTrue(register.write(lease.fencingToken(), "first"));
            long firstToken = lease.fencingToken();
            lease.close();
            try (Lease next = second.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(next.fencingToken() > firstToken);
                assertTrue(register.write(next.fencingToken(), "second"));
            }
            assertTrue(register.rejected().isEmpty(), register.rejected().toString());
        }
    }

    /**
     * A client learns of the new primary from Sentinel a moment after the promotion; until then its commands
     * fail with a store error (as they would for an application). Wait until it answers again.
     */
    private static void awaitFollowsFailover(LockClient client, String name) {
        await().atMost(Duration.ofSeconds(15)).ignoreExceptions().until(() -> {
            client.inspect(name);
            return true;
        });
    }

    private static long remainingMillis(LockClient client, String name) {
        return client.inspect(name).flatMap(i -> i.timeToLive()).map(Duration::toMillis).orElse(-1L);
    }

    @Test
    void aFailoverThatLostTheLockIsFencedAndReportedToTheHolder(TestInfo info) {
        String name = RedisLockContract.unique(info);
        FencedRegister register = new FencedRegister();
        // Fenced only (waitReplicas=0): the double grant that waiting for a replica, the default, prevents.
        try (LockClient first = LockClient.open(group.uri() + "?waitReplicas=0&timeout=500ms");
             LockClient second = LockClient.open(group.uri() + "?waitReplicas=0&timeout=500ms")) {
            Lease lease = first.lock(name, LONG_RENEWING).acquire(Duration.ofSeconds(2));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            long firstToken = lease.fencingToken();
            assertTrue(register.write(firstToken, "first"));
            // Asynchronous replication loses the last writes when the primary dies before sending them.
            // Make that happen every time: the replica forgets the lock and its counter before the kill.
            forgetOnReplica(name);

            group.killPrimaryAndAwaitFailover();
            awaitFollowsFailover(second, name);

            try (Lease second2 = second.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(second2.fencingToken() > firstToken,
                        "the new primary drew token " + second2.fencingToken() + " after " + firstToken);
                assertTrue(register.write(second2.fencingToken(), "second"));
                // The first holder, paused through all this, wakes up and writes: the register refuses.
                assertFalse(register.write(firstToken, "first (stale)"));
                // And its own renewal finds the lock gone.
                await().atMost(Duration.ofSeconds(10)).until(() -> lost.get() != null);
                assertEquals(LossReason.TAKEN_AWAY, lost.get().reason());
                assertFalse(lease.isHeld());
                assertTrue(second2.isHeld());
            }
            lease.close();
            assertEquals(1, register.rejected().size(), register.rejected().toString());
        }
    }

    /**
     * With one replica and the default WAIT, a failover leaves the promoted primary with no replica to
     * acknowledge: nothing can be locked (safe, but unavailable) until the old primary returns as its replica.
     * This is what {@code lockctl doctor} warns about when a Sentinel group has no spare replica.
     */
    @Test
    void withOneReplicaTheDefaultCannotLockAfterAFailoverUntilTheOldPrimaryReturns(TestInfo info) {
        String name = RedisLockContract.unique(info);
        try (LockClient locks = LockClient.open(group.uri() + "?timeout=500ms")) {
            locks.lock(name).acquire(Duration.ofSeconds(2)).close();

            group.killPrimaryAndAwaitFailover();
            awaitFollowsFailover(locks, name);

            LockStoreException e = assertThrows(LockStoreException.class, () -> locks.lock(name).tryAcquire());
            assertTrue(e.getMessage().contains("0 of 1 replica(s) acknowledged"), e.getMessage());
            assertTrue(locks.inspect(name).isEmpty(), "an unacknowledged grant stayed behind");

            // Back empty, as a primary; the Sentinel turns it into a replica of the promoted one.
            group.primary.process().restart();
            await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                    .until(() -> {
                        try (Lease lease = locks.lock(name).tryAcquire().orElseThrow()) {
                            return lease.isHeld();
                        }
                    });
        }
    }

    private void forgetOnReplica(String name) {
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            try (Jedis replica = group.replica.jedis()) {
                return replica.exists(RedisLockKeys.lockKey(name));
            }
        });
        try (Jedis replica = group.replica.jedis()) {
            replica.configSet("replica-read-only", "no");
            replica.del(RedisLockKeys.lockKey(name), RedisLockKeys.fenceKey(name));
        }
    }
}
