package io.locksmith.zookeeper;

import io.locksmith.tck.server.ZooKeeperEnsembles;
import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.LossReason;
import io.locksmith.spi.ProviderClientBuilder;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults of a three-node ensemble (in-JVM servers from curator-test): a member dies while a lock is held.
 * Either the holder keeps the lock, and nobody else gets it, or the holder is told it lost it before anyone
 * else gets it; the next holder's token is higher.
 */
class ZooKeeperEnsembleTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final LockOptions RENEWING = LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build();

    private TestingCluster cluster;

    @BeforeEach
    void startEnsemble() throws Exception {
        cluster = ZooKeeperEnsembles.of(3);
        cluster.start();
    }

    @AfterEach
    void stopEnsemble() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private String uri(String parameters) {
        return "zookeeper://" + cluster.getConnectString() + "/ensemble" + parameters;
    }

    private InstanceSpec serverOf(CapturingFactory factory) throws Exception {
        InstanceSpec spec = cluster.findConnectionInstance(factory.provider.curator().getZookeeperClient().getZooKeeper());
        assertNotNull(spec, "the holder is connected to a member");
        return spec;
    }

    /**
     * Acquires, trying again while the ensemble cannot answer: when the killed member was the leader, the
     * others elect a new one first, which on a loaded machine can take longer than a connection timeout.
     */
    private static Lease acquireThroughAnOutage(LockClient client, String name) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            try {
                return client.lock(name, RENEWING).acquire(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            } catch (LockStoreException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    @Test
    void killingTheHoldersServerReportsTheLossBeforeAnyoneElseGetsTheLock() throws Exception {
        String name = "ensemble-lose-" + UUID.randomUUID();
        CapturingFactory holderFactory = new CapturingFactory();
        try (LockClient holder = ProviderClientBuilder.create().uri(uri("?sessionTimeout=10s")).factory(holderFactory).build();
             LockClient other = LockClient.open(uri("?sessionTimeout=10s"))) {
            Lease lease = holder.lock(name, RENEWING).acquire(Duration.ofSeconds(10));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            AtomicLong lostAt = new AtomicLong();
            lease.onLost(event -> {
                lostAt.set(System.nanoTime());
                lost.set(event);
            });
            CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
                Lease next = acquireThroughAnOutage(other, name);
                long at = System.nanoTime();
                assertTrue(next.fencingToken() > lease.fencingToken(), "the next holder's token is higher");
                next.close();
                return at;
            });

            assertTrue(cluster.killServer(serverOf(holderFactory)));

            await().atMost(PATIENCE).until(() -> lost.get() != null);
            assertEquals(LossReason.SESSION_LOST, lost.get().reason());
            assertFalse(lease.isHeld());
            long nextAt = acquiredAt.get(PATIENCE.toSeconds() + 5, TimeUnit.SECONDS);
            assertTrue(lostAt.get() < nextAt, "the holder was told before the next holder got the lock");
            lease.close();
        }
    }

    @Test
    void withOnSuspendedWaitTheHolderKeepsTheLockAcrossAFailoverAndNobodyElseGetsIt() throws Exception {
        String name = "ensemble-wait-" + UUID.randomUUID();
        CapturingFactory holderFactory = new CapturingFactory();
        // Long enough to ride out a leader election on a loaded machine.
        String parameters = "?sessionTimeout=30s&onSuspended=wait";
        try (LockClient holder = ProviderClientBuilder.create().uri(uri(parameters)).factory(holderFactory).build();
             LockClient other = LockClient.open(uri(parameters))) {
            Lease lease = holder.lock(name, RENEWING).acquire(Duration.ofSeconds(10));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            long session = holderFactory.provider.currentSession();
            InstanceSpec killed = serverOf(holderFactory);

            assertTrue(cluster.killServer(killed));

            // The client moves to a surviving member within the session timeout and keeps its session.
            await().atMost(PATIENCE).until(() -> {
                InstanceSpec now = cluster.findConnectionInstance(
                        holderFactory.provider.curator().getZookeeperClient().getZooKeeper());
                return now != null && !now.equals(killed);
            });
            assertEquals(session, holderFactory.provider.currentSession(), "same session after the failover");
            assertTrue(other.lock(name).tryAcquire(Duration.ofMillis(500)).isEmpty(), "exclusion holds");
            assertTrue(lease.isHeld());
            assertEquals(null, lost.get());
            long token = lease.fencingToken();
            lease.close();
            try (Lease next = other.lock(name).acquire(PATIENCE)) {
                assertTrue(next.fencingToken() > token);
            }
        }
    }
}
