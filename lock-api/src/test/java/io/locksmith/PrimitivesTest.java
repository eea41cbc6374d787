package io.locksmith;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared client's composition of semaphores, read-write locks and elections, at the edges the kit (PrimitivesTck)
 * reaches only by chance on a slow store.
 */
class PrimitivesTest {

    private final List<LockClient> clients = new ArrayList<>();
    private final String store = "mem://primitives-" + UUID.randomUUID();

    private LockClient client() {
        LockClient client = LockClient.open(store);
        clients.add(client);
        return client;
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    /**
     * An acquire that waits for two permits, gets one of them and never the other must end at its bound: each wait
     * that ends, granted or not, counts (a granted one that did not count left the acquire waiting for ever; R12.4
     * found it on PostgreSQL, where a downgrade's releases are slow enough for two waits).
     */
    @Test
    void aWaitThatGetsPartOfWhatItNeedsStillEndsAtItsBound() throws Exception {
        String name = "partial-" + UUID.randomUUID();
        DistributedSemaphore holder = client().semaphore(name, 3);
        PermitLease first = holder.acquire(1, Duration.ofSeconds(2));
        PermitLease second = holder.acquire(1, Duration.ofSeconds(2));
        CompletableFuture<PermitLease> all = client().semaphore(name, 3).acquireAsync(3, Duration.ofMillis(800));
        // Once the acquire holds the free permit its tries are answered, and it waits for the other two.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> holder.holders(Duration.ofSeconds(1)).size() == 3);
        first.close(); // one of the two waited-for permits comes; the other never does
        ExecutionException ended = assertThrows(ExecutionException.class, () -> all.get(10, TimeUnit.SECONDS),
                "the acquire of 3 did not end at its bound");
        assertInstanceOf(LockTimeoutException.class, ended.getCause());
        assertTrue(second.isHeld());
        // Nothing of the timed-out acquire stayed behind: the two free permits and the gate are free.
        client().semaphore(name, 3).acquire(2, Duration.ofSeconds(2)).close();
    }

    @Test
    void aRefusedUpgradeNamesTheLockAndKeepsTheRead() {
        DistributedReadWriteLock lock = client().readWriteLock("rw-" + UUID.randomUUID());
        try (Lease read = lock.readLock().acquire(Duration.ofSeconds(2))) {
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> lock.writeLock().acquire(Duration.ofSeconds(30)));
            assertTrue(refused.getMessage().contains(lock.name()), refused.getMessage());
            assertTrue(read.isHeld());
            // Handed off, the read lease is no longer the thread's: the write waits for it like any other caller.
            read.handOff();
            assertTrue(lock.writeLock().tryAcquire(Duration.ofMillis(100)).isEmpty());
        }
    }

    /**
     * A caller's next zero-wait try right after its own acquire returned must not meet that acquire's gate (the gate was
     * released after the result: R11.5 under the latency mutant saw the newcomer refused by its own last attempt).
     */
    @Test
    void aZeroWaitTryRightAfterAnAcquireIsNotRefusedByItsOwnGate() {
        DistributedSemaphore semaphore = client().semaphore("gate-" + UUID.randomUUID(), 4);
        for (int round = 0; round < 200; round++) {
            PermitLease lease = semaphore.tryAcquire(1, Duration.ZERO).orElseThrow(
                    () -> new AssertionError("a zero-wait try of a free semaphore was refused"));
            lease.close();
        }
    }

    /**
     * An acquire whose gate is lost while it collects permits must not complete with that gate's token: an acquirer
     * that passed the gate after it has a greater token, and may have come and gone. Found by the safety run of the
     * write-lock shape on ZooKeeper (a client cut off lost its gate and, on reconnecting, completed with its old
     * token: token order violations, every write of it rejected by the fence).
     */
    @Test
    void anAcquireThatLostItsGateQueuesAgainForANewerToken() throws Exception {
        String storeName = "primitives-gate-" + UUID.randomUUID();
        String name = "requeue-" + UUID.randomUUID();
        String gate = name + "#permit/gate";
        LockOptions shortLease = LockOptions.builder().leaseTime(Duration.ofSeconds(1)).renewing().build();
        java.util.concurrent.CountDownLatch gateLost = new java.util.concurrent.CountDownLatch(1);
        LockClient collector = LockClient.builder().uri("mem://" + storeName).listener(event -> {
            if (event.type() == LockEvent.Type.LOST && event.lockName().equals(gate)) {
                gateLost.countDown();
            }
        }).build();
        clients.add(collector);
        LockClient others = LockClient.open("mem://" + storeName);
        clients.add(others);
        PermitLease held = others.semaphore(name, 2, shortLease).acquire(1, Duration.ofSeconds(2));
        CompletableFuture<PermitLease> both = collector.semaphore(name, 2, shortLease)
                .acquireAsync(2, Duration.ofSeconds(20));
        // It holds the gate and the free permit, and waits for the other.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
                others.semaphore(name, 2, shortLease).holders(Duration.ofSeconds(1)).size() == 2);
        long oldGateToken = others.inspect(gate).orElseThrow().fencingToken();
        io.locksmith.mem.MemStore.named(storeName).expire(gate);
        assertTrue(gateLost.await(10, TimeUnit.SECONDS), "the collector was never told its gate was lost");
        // Another acquirer passes the gate after it, and gets the permit the first holder frees.
        CompletableFuture<PermitLease> one = others.semaphore(name, 2, shortLease).acquireAsync(1, Duration.ofSeconds(20));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
                others.inspect(gate).map(info -> info.fencingToken() > oldGateToken).orElse(false));
        held.close();
        CompletableFuture.anyOf(one, both).get(10, TimeUnit.SECONDS);
        if (both.isDone() && !one.isDone()) {
            throw new AssertionError("the acquire that lost its gate (token " + oldGateToken + ") completed with token "
                    + both.join().fencingToken() + " while one that passed the gate after it still waited");
        }
        PermitLease later = one.get(10, TimeUnit.SECONDS);
        long laterToken = later.fencingToken();
        later.close();
        try (PermitLease collected = both.get(10, TimeUnit.SECONDS)) {
            assertTrue(collected.fencingToken() > laterToken, "the acquire that lost its gate (token " + oldGateToken
                    + ") completed with token " + collected.fencingToken() + ", not above the token " + laterToken
                    + " of a lease granted and released before it");
            assertEquals(2, collected.permits());
        }
    }

    @Test
    void aSemaphoreAsALockTakesItsPermitsAndRefusesToWaitForItself() throws Exception {
        String name = "as-lock-" + UUID.randomUUID();
        DistributedSemaphore semaphore = client().semaphore(name, 3);
        DistributedLock two = semaphore.asLock(2);
        assertThrows(IllegalArgumentException.class, () -> semaphore.asLock(0));
        assertThrows(IllegalArgumentException.class, () -> semaphore.asLock(4));
        try (Lease lease = two.acquire(Duration.ofSeconds(2))) {
            assertEquals(2, ((PermitLease) lease).permits());
            assertTrue(two.isHeldByCurrentThread());
            assertEquals(2, semaphore.holders(Duration.ofSeconds(1)).size());
            // One permit is left to this thread: asking for two more would wait for itself.
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> two.acquire(Duration.ofSeconds(30)));
            assertTrue(refused.getMessage().contains(name), refused.getMessage());
            try (Lease one = semaphore.asLock(1).acquire(Duration.ofSeconds(2))) {
                assertTrue(one.isHeld());
            }
            // Another client's view of the same semaphore waits, then gets them once they are released.
            CompletableFuture<Lease> other = client().semaphore(name, 3).asLock(2).acquireAsync(Duration.ofSeconds(10));
            assertFalse(other.isDone());
            lease.close();
            other.get(10, TimeUnit.SECONDS).close();
        }
        assertFalse(two.isHeldByCurrentThread());
    }

    @Test
    void aCandidateThatLeavesIsNoLongerLeaderAndTheNextIsElected() {
        String name = "election-" + UUID.randomUUID();
        LeaderElection first = client().election(name);
        LeaderElection second = client().election(name);
        first.join();
        Lease term = first.awaitLeadership(Duration.ofSeconds(2));
        second.join();
        assertFalse(second.isLeader());
        first.close();
        assertFalse(term.isHeld());
        Lease next = second.awaitLeadership(Duration.ofSeconds(2));
        assertTrue(next.fencingToken() > term.fencingToken());
        assertEquals(next.fencingToken(), second.leader(Duration.ofSeconds(1)).orElseThrow().fencingToken());
        second.close();
        assertTrue(second.leader(Duration.ofSeconds(1)).isEmpty(), "no leader once every candidate left");
    }
}
