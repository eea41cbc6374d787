package io.locksmith.redis;

import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.tck.server.RedisCluster;
import io.locksmith.tck.server.ServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis Cluster under the changes a running cluster sees: a held lock's slot resharded to another primary during the
 * hold and during a wait ({@code CLUSTER SETSLOT} and {@code MIGRATE}, as {@code redis-cli --cluster reshard} does),
 * a shard's primary killed and its replica promoted, and the locks of one client spread over every shard (batch
 * renewal by slot, listing across primaries). In every case the holder keeps its lock or is told before anyone else
 * gets it, and fencing tokens keep increasing: the counter is a key of the lock's slot and moves with it.
 */
class ClusterFaultTest {

    private static final LockOptions RENEWING = LockOptions.builder().leaseTime(Duration.ofSeconds(2)).renewing().build();
    /**
     * Long enough to outlive a failover and the old primary's return: until then the promoted primary has no replica
     * to acknowledge a renewal, so the holder's renewals fail (and are tried again) for that long.
     */
    private static final LockOptions LONG_RENEWING = LockOptions.builder().leaseTime(Duration.ofSeconds(20))
            .renewing().build();

    static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** The Redis transport of every client here ({@code client=} of the URI). */
    protected String transport() {
        return "jedis";
    }

    private LockClient client() {
        return client("");
    }

    private LockClient client(String parameters) {
        return LockClient.open(cluster.uri() + "?timeout=2s&client=" + transport() + parameters);
    }

    @Test
    void aHeldLockStaysItsHoldersWhileItsSlotMovesToAnotherPrimary(TestInfo info) {
        String name = RedisLockContract.unique(info);
        int slot = ClusterTestSupport.slotOf(name);
        try (LockClient holder = client(); LockClient other = client()) {
            Lease lease = holder.lock(name, RENEWING).acquire(Duration.ofSeconds(5));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            long token = lease.fencingToken();
            ServerProcess target = cluster.otherPrimary(slot);

            cluster.moveSlot(slot, target, () -> {
                // Migrating, keys still on the source. The holder's renewal names the lock's hash alone, which the
                // source has: it is served. An acquire names keys the lock does not have (the queue, an abandoned
                // marker): Redis answers TRYAGAIN to a script whose keys are split by a migration, for as long as it
                // lasts (milliseconds when redis-cli reshards; held open here). Never a grant: refused, or an error.
                try {
                    assertTrue(other.lock(name).tryAcquire().isEmpty(), "granted while the slot was migrating");
                } catch (LockStoreException e) {
                    // TRYAGAIN until the call's bound (Jedis), or at once (Redisson, which retries nothing here).
                    assertTrue(e.getMessage().contains("acquire") || e.getMessage().contains("TRYAGAIN"), e.getMessage());
                }
            });

            assertEquals(target, cluster.primaryOf(slot));
            assertTrue(other.lock(name).tryAcquire().isEmpty(), "granted after the slot moved");
            LockInfo held = other.inspect(name).orElseThrow();
            assertEquals(holder.clientId(), held.holder().clientId());
            assertEquals(token, held.fencingToken());
            // The holder's renewals follow the slot: it outlives several leases on the new primary.
            long renewedOnTarget = awaitRenewedOn(target, name, held.timeToLive().orElseThrow());
            assertTrue(renewedOnTarget > 0);
            assertTrue(lease.isHeld());
            assertNull(lost.get());
            lease.close();
            try (Lease next = other.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(next.fencingToken() > token, "token " + next.fencingToken() + " after " + token);
            }
        }
    }

    @Test
    void aWaiterWaitingWhileTheSlotMovesIsGrantedOnTheNewPrimary(TestInfo info) throws Exception {
        String name = RedisLockContract.unique(info);
        int slot = ClusterTestSupport.slotOf(name);
        try (LockClient holder = client(); LockClient waiter = client()) {
            Lease lease = holder.lock(name, RENEWING).acquire(Duration.ofSeconds(5));
            long token = lease.fencingToken();
            CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(
                    () -> waiter.lock(name).acquire(Duration.ofSeconds(30)));
            ServerProcess target = cluster.otherPrimary(slot);
            cluster.moveSlot(slot, target, () -> {
            });
            assertFalse(waiting.isDone(), "the waiter was granted a held lock");
            lease.close();
            try (Lease granted = waiting.get(30, TimeUnit.SECONDS)) {
                assertTrue(granted.fencingToken() > token, "token " + granted.fencingToken() + " after " + token);
                assertEquals(waiter.clientId(), holder.inspect(name).orElseThrow().holder().clientId());
            }
        }
    }

    @Test
    void locksOnEveryShardAreRenewedTogetherAndListedFromEveryPrimary(TestInfo info) {
        String prefix = RedisLockContract.unique(info) + ":";
        try (LockClient holder = client(); LockClient observer = client()) {
            List<Lease> leases = new ArrayList<>();
            Set<Integer> slots = new TreeSet<>();
            Set<String> primaries = new TreeSet<>();
            ServerProcess[] owners = cluster.slotOwners();
            for (int i = 0; i < 60; i++) {
                String name = prefix + i;
                leases.add(holder.lock(name, RENEWING).acquire(Duration.ofSeconds(5)));
                slots.add(ClusterTestSupport.slotOf(name));
                primaries.add(owners[ClusterTestSupport.slotOf(name)].name());
            }
            assertEquals(3, primaries.size(), "the names fell on " + primaries + " only");
            assertTrue(slots.size() > 50, slots.size() + " slots");
            // Renewed in one batch per slot: every lock outlives three of its 2 s leases.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
            await().atMost(Duration.ofSeconds(20)).until(() -> System.nanoTime() - until > 0);
            for (Lease lease : leases) {
                assertTrue(lease.isHeld(), lease.lockName() + " was lost");
            }
            List<LockInfo> listed = observer.list(prefix, Duration.ofSeconds(10));
            assertEquals(60, listed.size(), listed.toString());
            leases.forEach(Lease::close);
            assertTrue(observer.list(prefix, Duration.ofSeconds(10)).isEmpty());
        }
    }

    /**
     * The primary of a held lock's slot is killed; its replica, which acknowledged the grant ({@code WAIT 1}), is
     * promoted. The lock survives with its holder, and when the old primary comes back (empty, as a replica of the
     * promoted one), the next holder's token is above the first.
     */
    @Test
    void aLockTheReplicaAcknowledgedSurvivesItsPrimarysDeath(TestInfo info) {
        String name = RedisLockContract.unique(info);
        int slot = ClusterTestSupport.slotOf(name);
        // The replica's acknowledgement gets 1 s, not the default 100 ms: a replica that has just resynced on a loaded
        // machine may answer WAIT late, and this test is about the failover, not WAIT's latency (in a CI run at load
        // 15 the holder's renewal was not seen within 20 s of the old primary's return; the cause was not confirmed).
        try (LockClient holder = client("&waitTimeout=1s"); LockClient other = client("&waitReplicas=0")) {
            Lease lease = holder.lock(name, LONG_RENEWING).acquire(Duration.ofSeconds(5));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            long token = lease.fencingToken();
            ServerProcess primary = cluster.primaryOf(slot);

            primary.kill();
            ServerProcess promoted = cluster.awaitPrimaryOf(slot, primary);
            await().atMost(Duration.ofSeconds(15)).ignoreExceptions()
                    .until(() -> other.inspect(name).isPresent());
            assertTrue(other.lock(name).tryAcquire().isEmpty(), "the promoted replica forgot an acknowledged lock");
            assertEquals(holder.clientId(), other.inspect(name).orElseThrow().holder().clientId());

            // Back empty: the cluster makes it a replica of the promoted primary, so the default WAIT 1 is met again.
            primary.restart();
            cluster.awaitReady();
            assertTrue(cluster.replicasOf(promoted).contains(primary));
            // A renewal shows as the TTL going up between two reads (it only goes down otherwise). Compared with the
            // first read only, a renewal was missed whenever that read came just after one: the next renewal's TTL
            // stays above it for a few milliseconds only, between two polls (the cause of this test's CI failures).
            AtomicLong previous = new AtomicLong(ttlMillis(other, name));
            await().atMost(Duration.ofSeconds(40)).until(() -> {
                long now = ttlMillis(other, name);
                return lost.get() != null || now > previous.getAndSet(now);
            });
            assertNull(lost.get(), () -> "lost: " + lost.get());
            assertTrue(lease.isHeld());
            lease.close();
            try (Lease next = holder.lock(name).acquire(Duration.ofSeconds(10))) {
                assertTrue(next.fencingToken() > token, "token " + next.fencingToken() + " after " + token);
            }
        }
    }

    /** The lock's remaining TTL in the store, -1 if it is free. */
    private static long ttlMillis(LockClient observer, String name) {
        Optional<LockInfo> info = observer.inspect(name);
        return info.flatMap(LockInfo::timeToLive).map(Duration::toMillis).orElse(-1L);
    }

    /** Waits until the lock's TTL on {@code node} went up past {@code seen}: a renewal reached that node. */
    private static long awaitRenewedOn(ServerProcess node, String name, Duration seen) {
        // Up between two reads, not only above the first: see aLockTheReplicaAcknowledgedSurvivesItsPrimarysDeath.
        AtomicReference<Long> renewed = new AtomicReference<>(-1L);
        AtomicLong previous = new AtomicLong(seen.toMillis());
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            try (var jedis = ClusterTestSupport.jedis(node)) {
                long pttl = jedis.pttl(RedisLockKeys.lockKey(name));
                renewed.set(pttl);
                return pttl > previous.getAndSet(pttl);
            }
        });
        return renewed.get();
    }
}
