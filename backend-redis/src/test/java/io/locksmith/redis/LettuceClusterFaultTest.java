package io.locksmith.redis;

import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import io.locksmith.tck.server.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ClusterFaultTest} with Lettuce's cluster client as the transport ({@code client=lettuce}), and the
 * {@code ASK} redirect, which the transport follows itself ({@code ASKING} and the script enqueued together on the
 * target's connection): the base class's migrations move the keys in one step, so its clients meet it rarely.
 */
class LettuceClusterFaultTest extends ClusterFaultTest {

    private static final LockOptions RENEWING = LockOptions.builder().leaseTime(Duration.ofSeconds(2)).renewing().build();

    @Override
    protected String transport() {
        return "lettuce";
    }

    @Test
    void aHeldLockIsRenewedOnTheTargetWhileItsKeysHaveMovedAndItsSlotNotYet(TestInfo info) {
        String name = RedisLockContract.unique(info);
        int slot = ClusterTestSupport.slotOf(name);
        try (LockClient holder = LockClient.open(cluster.uri() + "?timeout=2s&client=lettuce")) {
            Lease lease = holder.lock(name, RENEWING).acquire(Duration.ofSeconds(5));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            ServerProcess source = cluster.primaryOf(slot);
            ServerProcess target = cluster.otherPrimary(slot);
            cluster.moveSlot(slot, target, () -> {
                // The keys move now, the slot stays the source's: the source answers ASK for the lock's hash, which
                // the holder's renewal names alone, and the target serves it after ASKING.
                List<String> keys = cluster.cli(source, "cluster", "getkeysinslot", Integer.toString(slot), "100")
                        .lines().filter(line -> !line.isBlank()).toList();
                assertTrue(keys.contains(RedisLockKeys.lockKey(name)), keys.toString());
                List<String> migrate = new ArrayList<>(List.of("migrate", "127.0.0.1", Integer.toString(target.port()),
                        "", "0", "5000", "replace", "keys"));
                migrate.addAll(keys);
                assertEquals("OK", cluster.cli(source, migrate.toArray(new String[0])).strip());
                long movedWith = pttl(target, name);
                assertTrue(movedWith > 0, "the hash did not arrive on the target: " + movedWith);
                // A renewal resets the time to live: seen on the target as a larger one than the keys came with.
                await().atMost(Duration.ofSeconds(20)).until(() -> pttl(target, name) > movedWith);
                assertTrue(lease.isHeld());
            });
            assertEquals(target, cluster.primaryOf(slot));
            assertTrue(lease.isHeld());
            assertNull(lost.get());
            lease.close();
        }
    }

    /** The hash's time to live on {@code node}, which imports its slot: asked after {@code ASKING}, as a client must. */
    private static long pttl(ServerProcess node, String name) {
        try (var jedis = ClusterTestSupport.jedis(node)) {
            jedis.asking();
            return jedis.pttl(RedisLockKeys.lockKey(name));
        }
    }
}
