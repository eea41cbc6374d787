package io.locksmith;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Re-entry follows the holding, not a thread that has moved on (issue 28, SPEC R4.4-R4.6): a lease handed to another
 * thread is never re-entered by the thread it left; a nested acquire inside a synchronous critical section still is.
 * Every scenario here re-entered with the same fencing token before the change.
 */
@Timeout(30)
class HandOffTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private static LockClient open() {
        return LockClient.open("mem://" + UUID.randomUUID());
    }

    private static String name() {
        return "order:" + UUID.randomUUID();
    }

    @Test
    void aNestedAcquireOnTheHoldingThreadStillReentersWithTheSameToken() {
        try (LockClient client = open()) {
            DistributedLock lock = client.lock(name());
            try (Lease outer = lock.acquire(WAIT); Lease inner = lock.acquire(WAIT)) {
                assertEquals(outer.fencingToken(), inner.fencingToken());
                assertEquals(2, outer.holdCount());
                assertTrue(lock.isHeldByCurrentThread());
            }
        }
    }

    /** The first scenario, with the documented hand-off: the former thread waits for the new holder's close. */
    @Test
    void aLeaseHandedToAnotherThreadIsNotReenteredByTheThreadItLeft() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (LockClient client = open()) {
            DistributedLock lock = client.lock(name());
            Lease first = lock.acquire(WAIT);
            CountDownLatch closeNow = new CountDownLatch(1);
            Lease handed = first.handOff();
            CompletableFuture<Void> work = CompletableFuture.runAsync(() -> {
                await(closeNow);
                handed.close();
            }, executor);
            assertFalse(lock.isHeldByCurrentThread(), "a handed-off lease is no longer this thread's to re-enter");

            // The former thread serves its next request and takes the same lock: it must wait, not re-enter.
            assertTrue(lock.tryAcquire(Duration.ofMillis(200)).isEmpty(),
                    "the thread the lease left re-entered it while the new holder's critical section was open");
            CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> lock.acquire(WAIT));
            closeNow.countDown();
            work.get(5, TimeUnit.SECONDS);
            try (Lease second = next.get(5, TimeUnit.SECONDS)) {
                assertTrue(second.fencingToken() > first.fencingToken(), "a new holding gets a greater token");
                assertEquals(1, second.holdCount());
            }
        } finally {
            executor.shutdownNow();
        }
    }

    /** The safety net: the new holder's first use of the lease (its fencing token) ends the former thread's binding. */
    @Test
    void theNewHoldersUseOfTheLeaseEndsTheFormerThreadsReentry() throws Exception {
        try (LockClient client = open()) {
            DistributedLock lock = client.lock(name());
            Lease lease = lock.acquire(WAIT);
            long token = CompletableFuture.supplyAsync(lease::fencingToken).get(5, TimeUnit.SECONDS);
            assertTrue(lock.tryAcquire(Duration.ofMillis(100)).isEmpty(),
                    "the former thread re-entered a lease another thread works with (token " + token + ")");
            CompletableFuture.runAsync(lease::close).get(5, TimeUnit.SECONDS);
            try (Lease again = lock.acquire(WAIT)) {
                assertTrue(again.fencingToken() > token);
            }
        }
    }

    @Test
    void lookingAtALeaseFromAnotherThreadKeepsTheBinding() throws Exception {
        try (LockClient client = open()) {
            DistributedLock lock = client.lock(name());
            try (Lease lease = lock.acquire(WAIT)) {
                assertTrue(CompletableFuture.supplyAsync(lease::isHeld).get(5, TimeUnit.SECONDS));
                try (Lease nested = lock.acquire(WAIT)) {
                    assertEquals(lease.fencingToken(), nested.fencingToken(), "a monitor's isHeld() moved nothing");
                }
            }
        }
    }

    @Test
    void aNonReentrantLockNeverReenters() {
        try (LockClient client = open()) {
            DistributedLock lock = client.lock(name(), LockOptions.builder().reentrant(false).build());
            try (Lease lease = lock.acquire(WAIT)) {
                assertFalse(lock.isHeldByCurrentThread());
                assertTrue(lock.tryAcquire(Duration.ofMillis(100)).isEmpty(), "a non-reentrant lock re-entered");
                assertThrows(LockTimeoutException.class, () -> lock.acquire(Duration.ofMillis(50)));
                assertTrue(lease.isHeld());
            }
        }
    }

    @Test
    void anAsyncLeaseIsNeverReenteredByAThread() throws Exception {
        try (LockClient client = open()) {
            DistributedLock lock = client.lock(name());
            Lease lease = lock.acquireAsync(WAIT).get(5, TimeUnit.SECONDS);
            assertTrue(lock.tryAcquire(Duration.ofMillis(100)).isEmpty(), "a thread re-entered an async lease");
            assertTrue(lock.tryAcquireAsync(Duration.ofMillis(100)).get(5, TimeUnit.SECONDS).isEmpty(),
                    "an async acquire re-entered");
            lease.closeAsync().get(5, TimeUnit.SECONDS);
            Optional<Lease> next = lock.tryAcquire(Duration.ZERO);
            assertTrue(next.isPresent());
            assertTrue(next.get().fencingToken() > lease.fencingToken());
            next.get().close();
        }
    }

    @Test
    void aClosedLeaseCannotBeHandedOff() {
        try (LockClient client = open()) {
            Lease lease = client.lock(name()).acquire(WAIT);
            lease.close();
            IllegalMonitorStateException thrown = assertThrows(IllegalMonitorStateException.class, lease::handOff);
            assertTrue(thrown.getMessage().contains(lease.lockName()), thrown.getMessage());
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
