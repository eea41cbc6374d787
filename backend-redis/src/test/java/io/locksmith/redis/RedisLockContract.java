package io.locksmith.redis;

import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.LossReason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lock rules every Redis deployment and transport must keep, against real servers. Subclasses open
 * clients on their deployment and expire a lock behind its holder's back.
 */
abstract class RedisLockContract {

    private static final LockOptions FIXED_2S = LockOptions.builder().leaseTime(Duration.ofSeconds(2)).fixedLease().build();

    /** A new client on the store under test. */
    protected abstract LockClient newClient();

    /** Makes the lock expire now on the store ({@code PEXPIRE key 1} on every node). */
    protected abstract void expireBehindClientsBack(String lockName);

    static String unique(TestInfo info) {
        return info.getTestMethod().map(m -> m.getName()).orElse("lock") + ":" + UUID.randomUUID();
    }

    @Test
    void aHeldLockExcludesOtherClients(TestInfo info) {
        String name = unique(info);
        try (LockClient a = newClient(); LockClient b = newClient()) {
            try (Lease lease = a.lock(name).acquire(Duration.ofSeconds(2))) {
                assertTrue(lease.isHeld());
                assertTrue(b.lock(name).tryAcquire().isEmpty(), "a second client got a held lock");
            }
            try (Lease lease = b.lock(name).tryAcquire().orElseThrow()) {
                assertTrue(lease.isHeld());
            }
        }
    }

    @Test
    void aFormerOwnerCannotReleaseTheNewHoldersLock(TestInfo info) {
        String name = unique(info);
        try (LockClient a = newClient(); LockClient b = newClient()) {
            Lease stale = a.lock(name, FIXED_2S).acquire(Duration.ofSeconds(2));
            expireBehindClientsBack(name);
            Lease fresh = b.lock(name, FIXED_2S).acquire(Duration.ofSeconds(2));
            stale.close();
            LockInfo info2 = b.inspect(name).orElseThrow(() -> new AssertionError("the new holder's lock was deleted"));
            assertEquals(b.clientId(), info2.holder().clientId());
            assertEquals(fresh.fencingToken(), info2.fencingToken());
            fresh.close();
            assertTrue(b.inspect(name).isEmpty());
        }
    }

    @Test
    void fencingTokensIncreaseAcrossHolders(TestInfo info) {
        String name = unique(info);
        try (LockClient a = newClient(); LockClient b = newClient()) {
            long previous = -1;
            for (int i = 0; i < 4; i++) {
                LockClient client = i % 2 == 0 ? a : b;
                try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(2))) {
                    assertTrue(lease.fencingToken() > previous, "token " + lease.fencingToken() + " after " + previous);
                    previous = lease.fencingToken();
                }
            }
            // An expired holder's successor gets a higher token too.
            Lease stale = a.lock(name, FIXED_2S).acquire(Duration.ofSeconds(2));
            expireBehindClientsBack(name);
            try (Lease next = b.lock(name).acquire(Duration.ofSeconds(2))) {
                assertTrue(next.fencingToken() > stale.fencingToken());
            }
            stale.close();
        }
    }

    @Test
    void inspectShowsHolderTokenAndRemainingTime(TestInfo info) {
        String name = unique(info);
        try (LockClient a = newClient(); LockClient b = newClient()) {
            assertTrue(b.inspect(name).isEmpty());
            try (Lease lease = a.lock(name, FIXED_2S).acquire(Duration.ofSeconds(2))) {
                LockInfo seen = b.inspect(name).orElseThrow();
                assertEquals(a.clientId(), seen.holder().clientId());
                assertEquals(Thread.currentThread().getName(), seen.holder().thread());
                assertEquals(lease.fencingToken(), seen.fencingToken());
                Duration remaining = seen.timeToLive().orElseThrow();
                assertTrue(!remaining.isNegative() && remaining.compareTo(Duration.ofSeconds(2)) <= 0, remaining.toString());
            }
        }
    }

    @Test
    void renewalKeepsSeveralLocksPastTheirLeaseTime(TestInfo info) {
        String name = unique(info);
        // Long enough that a loaded 2-core CI machine does not starve the renewal thread past the lease.
        LockOptions renewing = LockOptions.builder().leaseTime(Duration.ofMillis(1500)).renewing().build();
        try (LockClient a = newClient(); LockClient b = newClient()) {
            List<Lease> leases = List.of(a.lock(name + ":1", renewing).acquire(Duration.ofSeconds(2)),
                    a.lock(name + ":2", renewing).acquire(Duration.ofSeconds(2)));
            // Observed over three lease times: the renewal thread must keep both (in batches).
            await().during(Duration.ofMillis(4500)).atMost(Duration.ofSeconds(9))
                    .until(() -> leases.stream().allMatch(Lease::isHeld));
            assertTrue(b.lock(name + ":1").tryAcquire().isEmpty());
            assertTrue(b.lock(name + ":2").tryAcquire().isEmpty());
            leases.forEach(Lease::close);
        }
    }

    @Test
    void aLockExpiredInTheStoreIsReportedLostToItsHolder(TestInfo info) {
        String name = unique(info);
        LockOptions renewing = LockOptions.builder().leaseTime(Duration.ofMillis(900)).renewing().build();
        try (LockClient a = newClient()) {
            Lease lease = a.lock(name, renewing).acquire(Duration.ofSeconds(2));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            expireBehindClientsBack(name);
            await().atMost(Duration.ofSeconds(3)).until(() -> lost.get() != null);
            assertFalse(lease.isHeld());
            assertEquals(LossReason.TAKEN_AWAY, lost.get().reason());
            lease.close();
        }
    }

    @Test
    void aWaiterGetsTheLockWhenItIsReleased(TestInfo info) throws Exception {
        String name = unique(info);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (LockClient a = newClient(); LockClient b = newClient()) {
            Lease held = a.lock(name).acquire(Duration.ofSeconds(2));
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
                try (Lease lease = b.lock(name).acquire(Duration.ofSeconds(10))) {
                    return lease.fencingToken();
                }
            }, pool);
            assertThrows(TimeoutException.class, () -> waiter.get(300, TimeUnit.MILLISECONDS),
                    "the waiter got a held lock");
            long holderToken = held.fencingToken();
            held.close();
            assertTrue(waiter.get(10, TimeUnit.SECONDS) > holderToken);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void tryAcquireOnAHeldLockReturnsEmptyQuickly(TestInfo info) {
        String name = unique(info);
        try (LockClient a = newClient(); LockClient b = newClient()) {
            try (Lease ignored = a.lock(name).acquire(Duration.ofSeconds(2))) {
                Optional<Lease> none = b.lock(name).tryAcquire(Duration.ofMillis(200));
                assertTrue(none.isEmpty());
            }
        }
    }
}
