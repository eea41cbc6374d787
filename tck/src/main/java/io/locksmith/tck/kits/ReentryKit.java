package io.locksmith.tck.kits;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of re-entry (docs/SPEC.md R4): re-entry is counted locally per thread, shares the holding's token, and
 * the store lock goes with the last re-entrant lease.
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
        b.lock(name, kit.longLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                "lock '" + name + "' stayed taken after its last re-entrant lease was closed")).close();
    }
}
