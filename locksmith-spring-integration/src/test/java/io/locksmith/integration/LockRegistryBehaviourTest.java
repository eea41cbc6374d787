package io.locksmith.integration;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockLostException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.integration.support.locks.DistributedLock;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What Spring Integration's own registries promise of their locks (their registry tests: lock and unlock, re-entry,
 * two threads, two registries, the wrong thread unlocking, expiry, renewal, interruption, {@code expireUnusedOlderThan},
 * {@code executeLocked}), checked of {@link LocksmithLockRegistry} on one real store, which a subclass per store
 * starts once for its tests. Two clients stand in for two processes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LockRegistryBehaviourTest {

    /** A store server started for one test class, and the URI of a client on it. */
    protected interface Server extends AutoCloseable {
        String uri();

        @Override
        void close();
    }

    private Server server;
    private LockClient client;
    private LockClient otherProcess;

    /** Starts the store under test. */
    protected abstract Server startServer();

    @BeforeAll
    void start() {
        server = startServer();
        client = LockClient.open(server.uri());
        otherProcess = LockClient.open(server.uri());
    }

    @AfterAll
    void stop() {
        for (AutoCloseable closeable : new AutoCloseable[] {client, otherProcess, server}) {
            try {
                if (closeable != null) {
                    closeable.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static String key() {
        return "si-" + UUID.randomUUID();
    }

    /** A fixed lease the store keeps and the test can wait out: the store's shortest, at least a second. */
    private Duration shortTtl() {
        Duration minimum = client.minimumLeaseTime();
        return minimum.compareTo(Duration.ofSeconds(1)) > 0 ? minimum : Duration.ofSeconds(1);
    }

    private boolean heldInStore(String name) {
        return client.inspect(name).isPresent();
    }

    @Test
    void aLockIsHeldInTheStoreUntilUnlocked() {
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client, "orders");
        String key = key();
        Lock lock = registry.obtain(key);
        lock.lock();
        try {
            assertTrue(heldInStore("orders:" + key));
        } finally {
            lock.unlock();
        }
        assertFalse(heldInStore("orders:" + key));
    }

    @Test
    void aReentrantLockIsReleasedByItsLastUnlock() throws InterruptedException {
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client);
        String key = key();
        LocksmithRegistryLock lock = registry.obtain(key);
        lock.lock();
        long token = lock.fencingToken();
        lock.lockInterruptibly();
        assertTrue(lock.tryLock());
        assertSame(lock, registry.obtain(key));
        assertTrue(registry.obtain(key).tryLock(1, TimeUnit.SECONDS));
        assertEquals(token, lock.fencingToken(), "a re-entry shares the holding's token");
        for (int i = 0; i < 3; i++) {
            lock.unlock();
            assertTrue(heldInStore(key), "still held after " + (i + 1) + " of 4 unlocks");
        }
        lock.unlock();
        assertFalse(heldInStore(key));
    }

    @Test
    void twoKeysAreTwoLocks() {
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client);
        Lock first = registry.obtain(key());
        Lock second = registry.obtain(key());
        assertNotSame(first, second);
        first.lock();
        try {
            assertTrue(second.tryLock());
            second.unlock();
        } finally {
            first.unlock();
        }
    }

    @Test
    void anotherThreadWaitsUntilTheOwnerUnlocks() throws Exception {
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client);
        String key = key();
        Lock lock = registry.obtain(key);
        lock.lock();
        assertFalse(CompletableFuture.supplyAsync(() -> registry.obtain(key).tryLock()).get(30, TimeUnit.SECONDS),
                "another thread of this process got a held lock");
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Long> other = CompletableFuture.supplyAsync(() -> {
            LocksmithRegistryLock same = registry.obtain(key);
            waiting.countDown();
            same.lock();
            try {
                return same.fencingToken();
            } finally {
                same.unlock();
            }
        });
        assertTrue(waiting.await(30, TimeUnit.SECONDS));
        long mine = ((LocksmithRegistryLock) lock).fencingToken();
        assertFalse(other.isDone());
        lock.unlock();
        assertTrue(other.get(30, TimeUnit.SECONDS) > mine, "the next holder's token is greater");
    }

    @Test
    void twoRegistriesOnTwoProcessesExcludeEachOther() throws InterruptedException {
        String key = key();
        DistributedLock here = new LocksmithLockRegistry(client, "jobs").obtain(key);
        DistributedLock there = new LocksmithLockRegistry(otherProcess, "jobs").obtain(key);
        here.lock();
        assertFalse(there.tryLock(), "the other process got a held lock");
        here.unlock();
        assertTrue(there.tryLock(30, TimeUnit.SECONDS));
        assertFalse(here.tryLock());
        there.unlock();
    }

    @Test
    void onlyTheOwnerMayUnlock() throws Exception {
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client);
        String key = key();
        Lock lock = registry.obtain(key);
        lock.lock();
        try {
            Throwable thrown = CompletableFuture.supplyAsync(() -> {
                try {
                    registry.obtain(key).unlock();
                    return null;
                } catch (RuntimeException e) {
                    return e;
                }
            }).get(30, TimeUnit.SECONDS);
            assertInstanceOf(IllegalStateException.class, thrown);
            assertTrue(thrown.getMessage().contains("You do not own lock '" + key + "'"), thrown.getMessage());
            assertTrue(heldInStore(key), "a refused unlock released the lock");
        } finally {
            lock.unlock();
        }
        IllegalStateException again = assertThrows(IllegalStateException.class, lock::unlock);
        assertTrue(again.getMessage().contains("held by no thread of this process"), again.getMessage());
    }

    @Test
    void aReentrantTryLockExtendsAFixedLeaseInTheStore() throws InterruptedException {
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client);
        String key = key();
        LocksmithRegistryLock lock = registry.obtain(key);
        Duration ttl = shortTtl();
        assertTrue(lock.tryLock(Duration.ZERO, ttl));
        assertTrue(lock.tryLock(Duration.ZERO, Duration.ofMinutes(2)), "the re-entry extends its own lease");
        // Had the re-entry not reached the store, the lock would be free again after ttl.
        assertEquals(Optional.empty(), otherProcess.lock(key).tryAcquire(ttl.plusSeconds(1)),
                "the lease ran out at its first time-to-live although a re-entry extended it");
        lock.unlock();
        lock.unlock();
        // The other client's ended wait takes its queue entry back in the background (etcd: a key of its own, which
        // a listing can show as the holder for a moment after this release).
        await("the lock free in the store").atMost(Duration.ofSeconds(30)).until(() -> !heldInStore(key));
    }

    @Test
    void aReentrantTryLockAnswersFalseOnceTheLeaseIsLostAndTheHoldingEnds() throws InterruptedException {
        Duration ttl = shortTtl();
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client, "", ttl);
        String key = key();
        LocksmithRegistryLock lock = registry.obtain(key);
        lock.lock();
        long lostToken = lock.fencingToken();
        Lease lease = lock.currentLease().orElseThrow();
        await("the fixed lease runs out").atMost(ttl.plusSeconds(30)).until(() -> !lease.isHeld());
        Lease thief = otherProcess.lock(key).acquire(Duration.ofSeconds(30));
        try {
            assertFalse(lock.tryLock(), "a re-entry of a lost holding was granted");
            assertFalse(lock.isAcquiredInThisProcess(), "the lost holding still counts as held");
            LockLostException lost = assertThrows(LockLostException.class, lock::unlock);
            assertTrue(lost.getMessage().contains(key), lost.getMessage());
            assertFalse(lock.tryLock(), "the other process's holding was ignored");
        } finally {
            thief.close();
        }
        assertTrue(lock.tryLock(30, TimeUnit.SECONDS), "a new holding after the loss");
        assertTrue(lock.fencingToken() > lostToken);
        lock.unlock();
    }

    @Test
    void unlockingALeaseThatRanOutSaysItWasLost() {
        Duration ttl = shortTtl();
        LocksmithRegistryLock lock = new LocksmithLockRegistry(client, "", ttl).obtain(key());
        lock.lock(ttl);
        Lease lease = lock.currentLease().orElseThrow();
        await("the fixed lease runs out").atMost(ttl.plusSeconds(30)).until(() -> !lease.isHeld());
        assertThrows(LockLostException.class, lock::unlock);
        assertFalse(lock.isAcquiredInThisProcess());
        assertThrows(IllegalStateException.class, lock::unlock);
    }

    @Test
    void renewLockGivesAFixedLeaseItsTimeAgain() throws InterruptedException {
        Duration ttl = shortTtl();
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client, "renew", ttl);
        String key = key();
        LocksmithRegistryLock lock = registry.obtain(key);
        lock.lock();
        try {
            registry.renewLock(key, Duration.ofMinutes(2));
            assertEquals(Optional.empty(), otherProcess.lock("renew:" + key).tryAcquire(ttl.plusSeconds(1)),
                    "the lease ran out at its first time although it was renewed for two minutes");
            registry.renewLock(key);
            assertTrue(lock.currentLease().orElseThrow().isHeld());
        } finally {
            lock.unlock();
        }
        assertThrows(IllegalStateException.class, () -> registry.renewLock(key), "renewing a lock not held");
    }

    @Test
    void renewLockOfARenewingLeaseChecksItAndRefusesATime() {
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client);
        String key = key();
        Lock lock = registry.obtain(key);
        lock.lock();
        try {
            registry.renewLock(key);
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> registry.renewLock(key, Duration.ofMinutes(1)));
            assertTrue(refused.getMessage().contains("renews itself"), refused.getMessage());
            CompletableFuture<Throwable> fromAnotherThread = CompletableFuture.supplyAsync(() -> {
                try {
                    registry.renewLock(key);
                    return null;
                } catch (RuntimeException e) {
                    return e;
                }
            });
            assertInstanceOf(IllegalStateException.class, fromAnotherThread.join());
        } finally {
            lock.unlock();
        }
    }

    @Test
    void lockIsNotEndedByAnInterruptButLockInterruptiblyIs() throws Exception {
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client);
        String key = key();
        Lock lock = registry.obtain(key);
        lock.lock();
        AtomicReference<Thread> waiter = new AtomicReference<>();
        AtomicBoolean interruptedAfterLock = new AtomicBoolean();
        CompletableFuture<Void> uninterruptible = CompletableFuture.runAsync(() -> {
            waiter.set(Thread.currentThread());
            Lock same = registry.obtain(key);
            same.lock();
            interruptedAfterLock.set(Thread.interrupted());
            same.unlock();
        });
        await().until(() -> waiter.get() != null && waiter.get().getState() != Thread.State.RUNNABLE);
        waiter.get().interrupt();
        assertThrows(TimeoutException.class, () -> uninterruptible.get(300, TimeUnit.MILLISECONDS),
                "lock() ended at an interrupt");
        lock.unlock();
        uninterruptible.get(30, TimeUnit.SECONDS);
        assertTrue(interruptedAfterLock.get(), "lock() did not set the interrupt flag again");

        lock.lock();
        AtomicReference<Thread> second = new AtomicReference<>();
        CompletableFuture<Throwable> interruptible = CompletableFuture.supplyAsync(() -> {
            second.set(Thread.currentThread());
            try {
                registry.obtain(key).lockInterruptibly();
                return null;
            } catch (InterruptedException e) {
                return e;
            }
        });
        await().until(() -> second.get() != null && second.get().getState() != Thread.State.RUNNABLE);
        second.get().interrupt();
        assertInstanceOf(InterruptedException.class, interruptible.get(30, TimeUnit.SECONDS));
        lock.unlock();
        assertFalse(heldInStore(key), "an interrupted wait left something behind");
    }

    @Test
    void expireUnusedOlderThanForgetsOnlyLocksNobodyHere() {
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client);
        String held = key();
        String unused = key();
        LocksmithRegistryLock heldLock = registry.obtain(held);
        LocksmithRegistryLock unusedLock = registry.obtain(unused);
        heldLock.lock();
        try {
            registry.expireUnusedOlderThan(-60_000);
            assertSame(heldLock, registry.obtain(held), "a held lock was forgotten");
            assertNotSame(unusedLock, registry.obtain(unused));
        } finally {
            heldLock.unlock();
        }
    }

    @Test
    void theCacheKeepsItsCapacityButNeverDropsAHeldLock() {
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client);
        registry.setCacheCapacity(2);
        String held = key();
        LocksmithRegistryLock heldLock = registry.obtain(held);
        heldLock.lock();
        try {
            String first = key();
            LocksmithRegistryLock firstLock = registry.obtain(first);
            registry.obtain(key());
            registry.obtain(key());
            assertSame(heldLock, registry.obtain(held));
            assertNotSame(firstLock, registry.obtain(first), "the least recently used free lock stayed");
        } finally {
            heldLock.unlock();
        }
    }

    @Test
    void executeLockedRunsUnderTheLockAndTimesOutWhileAnotherHoldsIt() throws Exception {
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client, "exec");
        String key = key();
        AtomicBoolean ran = new AtomicBoolean();
        registry.executeLocked(key, () -> {
            assertTrue(heldInStore("exec:" + key));
            ran.set(true);
        });
        assertTrue(ran.get());
        try (Lease elsewhere = otherProcess.lock("exec:" + key).acquire(Duration.ofSeconds(30))) {
            TimeoutException timeout = assertThrows(TimeoutException.class,
                    () -> registry.executeLocked(key, Duration.ofMillis(200), () -> ran.set(false)));
            assertTrue(timeout.getMessage().contains(key), timeout.getMessage());
            assertTrue(ran.get(), "the task ran without the lock");
        }
    }

    @Test
    void badInputIsRefusedNamingTheProblem() throws ExecutionException, InterruptedException {
        LocksmithLockRegistry registry = new LocksmithLockRegistry(client);
        assertThrows(NullPointerException.class, () -> registry.obtain(null));
        IllegalArgumentException notAString = assertThrows(IllegalArgumentException.class, () -> registry.obtain(42));
        assertTrue(notAString.getMessage().contains("java.lang.Integer"), notAString.getMessage());
        assertThrows(IllegalArgumentException.class, () -> registry.obtain(" "));
        assertThrows(IllegalArgumentException.class, () -> registry.obtain("x".repeat(10_000)));
        LocksmithRegistryLock lock = registry.obtain(key());
        assertThrows(IllegalArgumentException.class, () -> lock.lock(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> lock.tryLock(Duration.ZERO, Duration.ofDays(2)));
        assertThrows(NullPointerException.class, () -> lock.tryLock(null, Duration.ofSeconds(1)));
        assertFalse(lock.isAcquiredInThisProcess());
        assertThrows(IllegalStateException.class, lock::fencingToken);
        assertThrows(UnsupportedOperationException.class, lock::newCondition);
        assertThrows(IllegalArgumentException.class, () -> new LocksmithLockRegistry(client, "", Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new LocksmithLockRegistry(client, "  "));
        assertThrows(NullPointerException.class, () -> new LocksmithLockRegistry(null));
    }
}
