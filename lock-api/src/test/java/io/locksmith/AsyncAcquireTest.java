package io.locksmith;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The asynchronous acquire (issue 28): bounded, cancellable, exclusive, and holding no thread while it waits. */
@Timeout(60)
class AsyncAcquireTest {

    private static LockClient open() {
        return LockClient.open("mem://" + UUID.randomUUID());
    }

    private static String name() {
        return "job:" + UUID.randomUUID();
    }

    @Test
    void aFreeLockIsGrantedAndAReleaseHandsItToTheWaiter() throws Exception {
        try (LockClient client = open()) {
            DistributedLock lock = client.lock(name());
            Lease first = lock.acquireAsync(Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS);
            CompletableFuture<Lease> waiting = lock.acquireAsync(Duration.ofSeconds(10));
            assertFalse(waiting.isDone());
            first.closeAsync().get(5, TimeUnit.SECONDS);
            Lease second = waiting.get(5, TimeUnit.SECONDS);
            assertTrue(second.fencingToken() > first.fencingToken());
            second.close();
        }
    }

    @Test
    void aBoundedWaitCompletesWithATimeOutAndLeavesNothingBehind() throws Exception {
        try (LockClient client = open(); LockClient other = open()) {
            String name = name();
            try (Lease held = client.lock(name).acquire(Duration.ofSeconds(1))) {
                ExecutionException failed = assertThrows(ExecutionException.class,
                        () -> client.lock(name).acquireAsync(Duration.ofMillis(100)).get(5, TimeUnit.SECONDS));
                assertInstanceOf(LockTimeoutException.class, failed.getCause());
                assertEquals(Optional.empty(),
                        client.lock(name).tryAcquireAsync(Duration.ofMillis(50)).get(5, TimeUnit.SECONDS));
                assertTrue(held.isHeld());
            }
            assertTrue(client.inspect(name).isEmpty(), "the timed-out waits left something in the store");
        }
    }

    @Test
    void cancellingTheFutureEndsTheWaitAndLeavesNothingBehind() throws Exception {
        try (LockClient client = open()) {
            String name = name();
            DistributedLock lock = client.lock(name);
            Lease held = lock.acquire(Duration.ofSeconds(1));
            CompletableFuture<Lease> waiting = lock.acquireAsync(Duration.ofSeconds(30));
            assertTrue(waiting.cancel(true));
            assertThrows(CancellationException.class, waiting::join);
            held.close();
            // Nobody was left behind to take the lock: it is free, and a fresh acquire gets it at once.
            await().atMost(Duration.ofSeconds(5)).until(() -> client.inspect(name).isEmpty());
            try (Lease next = lock.tryAcquire().orElseThrow()) {
                assertTrue(next.fencingToken() > held.fencingToken());
            }
            assertEquals(0, client.heldCount());
        }
    }

    /** A thousand waits on one name are registrations: no thread each. */
    @Test
    void aThousandAsyncWaitersHoldNoThreadAndEachGetsTheLockInTurn() throws Exception {
        try (LockClient client = open()) {
            DistributedLock lock = client.lock(name());
            Lease held = lock.acquire(Duration.ofSeconds(1));
            int threadsBefore = Thread.activeCount();
            AtomicLong lastToken = new AtomicLong(held.fencingToken());
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                all.add(lock.acquireAsync(Duration.ofSeconds(40)).thenCompose(lease -> {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    if (lease.fencingToken() <= lastToken.getAndSet(lease.fencingToken())) {
                        overlaps.incrementAndGet();
                    }
                    inside.decrementAndGet();
                    return lease.closeAsync();
                }));
            }
            int threadsWaiting = Thread.activeCount();
            assertTrue(threadsWaiting - threadsBefore < 50,
                    "1,000 async waits started " + (threadsWaiting - threadsBefore) + " threads");
            held.close();
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(50, TimeUnit.SECONDS);
            assertEquals(0, overlaps.get(), "two async holders at once, or a token that did not increase");
        }
    }

    @Test
    void aClosedClientFailsTheWait() throws Exception {
        LockClient client = open();
        DistributedLock lock = client.lock(name());
        Lease held = lock.acquire(Duration.ofSeconds(1));
        CompletableFuture<Lease> waiting = lock.acquireAsync(Duration.ofSeconds(30));
        client.close();
        ExecutionException failed = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, failed.getCause());
        assertFalse(held.isHeld());
        assertThrows(IllegalStateException.class, () -> lock.acquireAsync(Duration.ZERO));
    }

    @Test
    void badInputIsRefusedAtOnce() {
        try (LockClient client = open()) {
            DistributedLock lock = client.lock(name());
            assertThrows(NullPointerException.class, () -> lock.acquireAsync(null));
            assertThrows(IllegalArgumentException.class, () -> lock.tryAcquireAsync(Duration.ofMillis(-1)));
        }
    }
}
