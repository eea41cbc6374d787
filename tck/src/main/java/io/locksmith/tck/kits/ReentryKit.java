package io.locksmith.tck.kits;

import io.locksmith.Capability;
import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.LockTimeoutException;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of re-entry (docs/SPEC.md R4): re-entry is counted locally for the thread a holding is bound to, shares
 * the holding's token, and the store lock goes with the last re-entrant lease; a lease handed to another thread, a
 * non-reentrant lock and an asynchronous lease are never re-entered (R4.4-R4.6).
 */
public interface ReentryKit extends RuleKit {

    @Test
    default void required_r4_1_reentryIsCountedLocallyAndSharesTheToken() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        DistributedLock lock = a.lock(name, kit.longLease());
        try (Lease outer = lock.acquire(timing.slack())) {
            try (Lease inner = lock.acquire(timing.slack());
                 Lease again = a.lock(name, kit.longLease()).tryAcquire().orElseThrow(
                         () -> new AssertionError("re-entry through another DistributedLock of the same name failed"))) {
                assertEquals(outer.fencingToken(), inner.fencingToken(), "a re-entrant lease got another token");
                assertEquals(outer.fencingToken(), again.fencingToken(), "a re-entrant lease got another token");
                assertEquals(3, outer.holdCount(), "three leases share the store lock");
                assertEquals(1, a.heldCount(), "re-entry took a second store lock");
                assertTrue(lock.isHeldByCurrentThread());
                assertEquals(outer.fencingToken(), a.inspect(name).map(LockInfo::fencingToken).orElse(null),
                        "the store shows another token than the re-entrant leases");
            }
            assertEquals(1, outer.holdCount());
            assertTrue(outer.isHeld(), "closing the inner leases lost the outer one");
        }
        assertFalse(lock.isHeldByCurrentThread());
    }

    @Test
    default void required_r4_2_otherThreadsOfTheSameClientAreExcluded() throws Exception {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        try (Lease held = a.lock(name, kit.longLease()).acquire(timing.slack())) {
            Optional<Lease> fromOtherThread = kit.inOtherThread(() -> a.lock(name, kit.longLease()).tryAcquire(timing.shortWait()));
            fromOtherThread.ifPresent(Lease::close);
            assertTrue(fromOtherThread.isEmpty(), "another thread of the same client got lock '" + name
                    + "' while it was held: re-entry must be per thread");
            assertTrue(held.isHeld());
        }
    }

    @Test
    default void required_r4_3_theStoreLockIsReleasedWithTheLastLease() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        Lease outer = a.lock(name, kit.longLease()).acquire(timing.slack());
        Lease inner = a.lock(name, kit.longLease()).acquire(timing.slack());
        inner.close();
        assertTrue(b.lock(name, kit.longLease()).tryAcquire().isEmpty(),
                "closing the inner re-entrant lease released lock '" + name + "' in the store");
        assertTrue(outer.isHeld());
        outer.close();
        kit.assertFree(b, name, null, "after its last re-entrant lease was closed");
    }

    @Test
    default void required_r4_4_aLeaseHandedToAnotherThreadExcludesTheThreadItLeft() throws Exception {
        KitContext kit = kitContext();
        LockClient a = kit.client();
        DistributedLock lock = a.lock(kit.name());
        Lease first = lock.acquire(kit.timing().slack().multipliedBy(2));
        CountDownLatch closeNow = new CountDownLatch(1);
        Lease handed = first.handOff();
        Thread worker = new Thread(() -> {
            try {
                closeNow.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            handed.close();
        }, "tck-new-holder");
        worker.start();
        try {
            Optional<Lease> reentered = lock.tryAcquire(kit.timing().shortWait());
            reentered.ifPresent(Lease::close);
            assertFalse(reentered.isPresent(), "the thread a lease was handed away from acquired the lock again"
                    + " (token " + reentered.map(Lease::fencingToken).orElse(-1L) + ", the new holder's is "
                    + first.fencingToken() + ") while the new holder's critical section was open");
            assertFalse(lock.isHeldByCurrentThread(), "isHeldByCurrentThread() still true after the hand-off");
            CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> lock.acquire(kit.timing().slack().multipliedBy(4)));
            closeNow.countDown();
            try (Lease second = next.get(kit.timing().slack().multipliedBy(5).toMillis(), TimeUnit.MILLISECONDS)) {
                assertEquals(1, second.holdCount(), "a new holding counts one lease");
                if (KitContext.hasCapability(a, Capability.FENCING)) {
                    assertTrue(second.fencingToken() > first.fencingToken(), "the holding after the handed-off one"
                            + " must get a greater token: " + second.fencingToken() + " after " + first.fencingToken());
                }
            }
        } finally {
            closeNow.countDown();
            worker.join(TimeUnit.SECONDS.toMillis(10));
        }
    }

    @Test
    default void required_r4_5_aNonReentrantLockNeverReenters() {
        KitContext kit = kitContext();
        LockClient a = kit.client();
        DistributedLock lock = a.lock(kit.name(), LockOptions.builder().leaseTime(kit.timing().longLease())
                .reentrant(false).build());
        try (Lease lease = lock.acquire(kit.timing().slack().multipliedBy(2))) {
            Optional<Lease> nested = lock.tryAcquire(kit.timing().shortWait());
            nested.ifPresent(Lease::close);
            assertFalse(nested.isPresent(), "a lock whose options say not reentrant was re-entered");
            assertTrue(lease.isHeld(), "the outer lease was lost by a refused nested acquire");
            assertThrows(LockTimeoutException.class, () -> lock.acquire(kit.timing().shortWait()));
        }
    }

    @Test
    default void required_r4_6_anAsyncLeaseIsNeverReenteredByAThread() throws Exception {
        KitContext kit = kitContext();
        LockClient a = kit.client();
        DistributedLock lock = a.lock(kit.name());
        Lease lease = lock.acquireAsync(kit.timing().slack().multipliedBy(2)).get(kit.timing().slack().multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
        try {
            Optional<Lease> byThread = lock.tryAcquire(kit.timing().shortWait());
            byThread.ifPresent(Lease::close);
            assertFalse(byThread.isPresent(), "the thread that completed an async acquire re-entered its lease");
            Optional<Lease> byAsync = lock.tryAcquireAsync(kit.timing().shortWait())
                    .get(kit.timing().slack().multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
            byAsync.ifPresent(Lease::close);
            assertFalse(byAsync.isPresent(), "an async acquire re-entered a held async lease");
        } finally {
            lease.closeAsync().get(kit.timing().slack().multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
        }
        assertFalse(lease.isHeld());
    }
}
