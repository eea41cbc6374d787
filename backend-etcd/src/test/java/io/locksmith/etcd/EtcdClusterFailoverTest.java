package io.locksmith.etcd;

import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockEvent;
import io.locksmith.tck.server.ServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.locksmith.LockStoreException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The etcd backend on a 3-member cluster whose leader is killed while a lock is held. */
class EtcdClusterFailoverTest {

    private static EtcdCluster etcd;

    @BeforeAll
    static void startCluster() {
        etcd = EtcdCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (etcd != null) {
            etcd.close();
        }
    }

    /** What a waiter saw when it got the lock. */
    private record Handoff(long token, boolean previousStillHeld, long at) {
    }

    @Test
    void killingTheLeaderKeepsExclusionAndTheHolderKeepsTheLockOrIsToldItLostIt() throws Exception {
        String name = "failover-" + System.nanoTime();
        AtomicLong renewedAfterKill = new AtomicLong();
        AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
        LockClient.Builder builder = LockClient.builder().uri(etcd.uri("lease=2s"));
        builder.listener(event -> {
            if (event.type() == LockEvent.Type.RENEWED && System.nanoTime() > killedAt.get()) {
                renewedAfterKill.incrementAndGet();
            }
        });
        try (LockClient holderClient = builder.build(); LockClient waiterClient = LockClient.open(etcd.uri("lease=2s"))) {
            Lease held = holderClient.lock(name).acquire(Duration.ofSeconds(10));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            held.onLost(lost::set);
            CompletableFuture<Handoff> waiter = CompletableFuture.supplyAsync(() -> {
                try (Lease next = waiterClient.lock(name).acquire(Duration.ofSeconds(30))) {
                    return new Handoff(next.fencingToken(), held.isHeld(), System.nanoTime());
                }
            });
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> holderClient.inspect(name).map(info -> info.waiters().size()).orElse(0) == 1);

            ServerProcess leader = etcd.leader();
            killedAt.set(System.nanoTime());
            leader.kill();
            try {
                await("the holder renews through the new leader, or learns that it lost the lock")
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> renewedAfterKill.get() >= 2 || lost.get() != null);
                if (lost.get() == null) {
                    assertTrue(held.isHeld());
                    assertFalse(waiter.isDone(), "the waiter must not get a lock that is still held");
                    long releasedAt = System.nanoTime();
                    held.close();
                    Handoff handoff = waiter.get(20, TimeUnit.SECONDS);
                    assertTrue(handoff.at() > releasedAt);
                    assertTrue(handoff.token() > held.fencingToken());
                } else {
                    Handoff handoff = waiter.get(20, TimeUnit.SECONDS);
                    assertFalse(handoff.previousStillHeld(), "the lost holder must not think it holds the lock");
                    assertTrue(handoff.token() > held.fencingToken());
                    held.close();
                }
            } finally {
                leader.restart();
            }
            etcd.awaitHealthy();
        }
    }

    @Test
    void contendersStayExclusiveAndTokensIncreaseWhileTheLeaderIsKilled() throws Exception {
        String name = "contended-" + System.nanoTime();
        Set<Lease> inside = ConcurrentHashMap.newKeySet();
        List<String> violations = new CopyOnWriteArrayList<>();
        AtomicLong lastToken = new AtomicLong();
        AtomicLong acquisitions = new AtomicLong();
        AtomicLong afterKill = new AtomicLong();
        AtomicLong killed = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        List<LockClient> clients = List.of(LockClient.open(etcd.uri("lease=2s")), LockClient.open(etcd.uri("lease=2s")));
        ExecutorService workers = Executors.newFixedThreadPool(4);
        ServerProcess leader = null;
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                LockClient client = clients.get(i % 2);
                running.add(workers.submit(() -> {
                    while (!stop.get()) {
                        Optional<Lease> maybe;
                        try {
                            maybe = client.lock(name).tryAcquire(Duration.ofSeconds(5));
                        } catch (LockStoreException e) {
                            continue; // the cluster was between leaders for longer than the time-out
                        }
                        if (maybe.isEmpty()) {
                            continue;
                        }
                        try (Lease lease = maybe.get()) {
                            for (Lease other : inside) {
                                if (other.isHeld()) {
                                    violations.add("token " + lease.fencingToken() + " granted while token "
                                            + other.fencingToken() + " was still held");
                                }
                            }
                            inside.add(lease);
                            long previous = lastToken.getAndAccumulate(lease.fencingToken(), Math::max);
                            if (previous >= lease.fencingToken() && lease.isHeld()) {
                                violations.add("token " + lease.fencingToken() + " after " + previous);
                            }
                            acquisitions.incrementAndGet();
                            if (killed.get() != 0) {
                                afterKill.incrementAndGet();
                            }
                            inside.remove(lease);
                        } catch (LockStoreException e) {
                            // a release during the failover: the key ends with the lease
                        }
                    }
                    return null;
                }));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> acquisitions.get() >= 20);
            leader = etcd.leader();
            leader.kill();
            killed.set(System.nanoTime());
            await().atMost(Duration.ofSeconds(30)).until(() -> afterKill.get() >= 20);
            stop.set(true);
            for (Future<?> worker : running) {
                worker.get(30, TimeUnit.SECONDS);
            }
            assertEquals(List.of(), violations);
        } finally {
            stop.set(true);
            workers.shutdownNow();
            clients.forEach(LockClient::close);
            if (leader != null) {
                leader.restart();
                etcd.awaitHealthy();
            }
        }
    }
}
