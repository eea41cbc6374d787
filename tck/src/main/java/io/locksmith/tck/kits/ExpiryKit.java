package io.locksmith.tck.kits;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.spi.Grant;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.locksmith.tck.kits.KitContext.assertClearError;
import static io.locksmith.tck.kits.KitContext.millisSince;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of expiry (docs/SPEC.md R3): a crashed holder's lock frees itself at its TTL, never earlier and not
 * much later, its holder knows first; the store's minimum lease and the limits of lease times hold.
 */
public interface ExpiryKit extends RuleKit {

    @Test
    default void required_r3_1_crashedHoldersLockFreesItselfAfterItsTtl() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient crashed = kit.client();
        LockClient b = kit.client();
        Lease abandoned = crashed.lock(name, kit.fixedShortLease()).acquire(timing.slack());
        // The holder never releases nor renews: the store alone must free the lock at its TTL.
        Duration bound = timing.shortLease().plus(timing.slack());
        long start = System.nanoTime();
        Optional<Lease> next = b.lock(name, kit.longLease()).tryAcquire(bound);
        assertTrue(next.isPresent(), "lock '" + name + "' acquired with a TTL of " + timing.shortLease()
                + " by a holder that then stopped was still taken after " + millisSince(start) + " ms");
        next.get().close();
        abandoned.close();
    }

    @Test
    default void required_r3_2_theStoreKeepsALockForItsWholeTtl() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        Duration lease = timing.slack().multipliedBy(2);
        try (Lease held = a.lock(name, LockOptions.builder().leaseTime(lease).fixedLease().build()).acquire(timing.slack())) {
            kit.waitFor(timing.shortLease());
            assertTrue(b.lock(name, kit.longLease()).tryAcquire().isEmpty(), "lock '" + name + "' with a TTL of " + lease
                    + " was free for another client after " + timing.shortLease());
            assertTrue(held.isHeld(), "the holder's lease of " + lease + " was lost after " + timing.shortLease());
        }
    }

    @Test
    default void required_r3_3_theStoreFreesALockAtItsTtlAndTheHolderKnowsFirst() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        SpiClient a = kit.spiClient(TckRule.R3_3, null);
        LockClient b = kit.client();
        String name = kit.name();
        Duration requested = timing.exactTtl();
        Duration ttl = a.faults().provider().effectiveTtl(requested);
        assertTrue(ttl.compareTo(requested) >= 0, "effectiveTtl(" + requested + ") is " + ttl + ": a store may round up, never down");
        long drift = ttl.toNanos() / 100 + TimeUnit.MILLISECONDS.toNanos(2);
        long precision = timing.expiryPrecision().toNanos();
        DistributedLock contender = b.lock(name, kit.longLease());
        long invokedAt = System.nanoTime();
        Lease held = a.client().lock(name, LockOptions.builder().leaseTime(requested).fixedLease().build()).acquire(timing.slack());
        long grantedAt = System.nanoTime();
        long giveUpAt = grantedAt + ttl.toNanos() + precision + timing.slack().toNanos();
        Optional<Lease> next = Optional.empty();
        long succeededAt;
        boolean oldHeldThen;
        while (true) {
            next = contender.tryAcquire();
            succeededAt = System.nanoTime();
            oldHeldThen = held.isHeld();
            if (next.isPresent() || succeededAt - giveUpAt > 0) {
                break;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
        long freedAfter = succeededAt - invokedAt;
        assertTrue(next.isPresent(), "lock '" + name + "' with a TTL of " + ttl + " was still taken "
                + TimeUnit.NANOSECONDS.toMillis(succeededAt - grantedAt) + " ms after its grant");
        next.get().close();
        assertFalse(oldHeldThen, "another client acquired '" + name + "' " + TimeUnit.NANOSECONDS.toMillis(freedAfter)
                + " ms after the first holder asked for a TTL of " + ttl + ", while the first holder's isHeld() was"
                + " still true: Grant.validity is longer than what the store keeps");
        assertTrue(freedAfter >= ttl.toNanos() - drift, "the store freed lock '" + name + "' early: another client"
                + " acquired it " + TimeUnit.NANOSECONDS.toMillis(freedAfter) + " ms after an acquire with a TTL of "
                + ttl.toMillis() + " ms (allowance for clock drift " + TimeUnit.NANOSECONDS.toMillis(drift) + " ms)");
        assertTrue(succeededAt - grantedAt <= ttl.toNanos() + precision, "the store freed lock '" + name + "' late: "
                + TimeUnit.NANOSECONDS.toMillis(succeededAt - grantedAt) + " ms after the grant, for a TTL of "
                + ttl.toMillis() + " ms that effectiveTtl() stated (precision " + timing.expiryPrecision().toMillis()
                + " ms): the store rounds the TTL up without saying so");
        held.close();
    }

    @Test
    default void required_r3_10_aLeaseUnderTheStoresMinimumIsRefusedBeforeAnyStoreCall() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        SpiClient a = kit.spiClient(TckRule.R3_10, null);
        Duration minimum = a.faults().provider().minimumTtl();
        assertTrue(minimum.compareTo(Duration.ZERO) > 0, "the provider states a minimum lease of " + minimum);
        String name = kit.name();
        int grantsBefore = a.faults().grants().size();
        for (Duration under : new Duration[]{Duration.ofNanos(1), minimum.minusNanos(1)}) {
            if (under.isZero()) {
                continue;
            }
            LockOptions options = LockOptions.builder().leaseTime(under).fixedLease().build();
            long start = System.nanoTime();
            Throwable thrown = assertThrows(Throwable.class, () -> a.client().lock(name, options).tryAcquire(),
                    "a lease of " + under + " under the store's " + minimum + " minimum was accepted");
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(thrown instanceof IllegalArgumentException, "a lease of " + under + " under the store's "
                    + minimum + " minimum should throw IllegalArgumentException, threw " + thrown);
            assertTrue(thrown.getMessage() != null && (thrown.getMessage().contains("minimum")
                    || thrown.getMessage().contains("at least")), "the refusal of a lease of " + under
                    + " should name the minimum: " + thrown.getMessage());
            assertTrue(tookMs < timing.slack().toMillis(), "refusing a lease of " + under + " took " + tookMs + " ms");
        }
        assertEquals(grantsBefore, a.faults().grants().size(), "a lease under the minimum reached the store");
        assertTrue(a.client().inspect(name).isEmpty(), "a refused lease left lock '" + name + "' taken");
    }

    @Test
    default void required_r3_11_theLimitsHoldAtTheirEdges() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient a = kit.client();
        LockClient b = kit.client();
        assertClearError(IllegalArgumentException.class,
                () -> LockOptions.builder().leaseTime(LockOptions.MAX_LEASE_TIME.plusNanos(1)), "a lease over the maximum");
        assertClearError(IllegalArgumentException.class,
                () -> LockOptions.builder().leaseTime(Duration.ofDays(1_000_000)), "a lease of a million days");
        assertClearError(IllegalArgumentException.class,
                () -> LockOptions.builder().maxHold(LockOptions.MAX_HOLD.plusNanos(1)), "a maximum hold over the maximum");
        // The maximum itself: granted, kept by the store (another client cannot take it), and for at most a day.
        String name = kit.name();
        LockOptions longest = LockOptions.builder().leaseTime(LockOptions.MAX_LEASE_TIME).maxHold(LockOptions.MAX_HOLD)
                .fixedLease().build();
        try (Lease lease = a.lock(name, longest).acquire(timing.slack())) {
            assertTrue(b.lock(name, kit.longLease()).tryAcquire().isEmpty(), "lock '" + name + "', held with the maximum"
                    + " lease of " + LockOptions.MAX_LEASE_TIME + ", was free for another client");
            LockInfo info = b.inspect(name).orElseThrow(() -> new AssertionError("the store does not show lock '" + name
                    + "', held with the maximum lease of " + LockOptions.MAX_LEASE_TIME));
            info.timeToLive().ifPresent(ttl -> assertTrue(ttl.compareTo(LockOptions.MAX_LEASE_TIME) <= 0
                            && ttl.compareTo(LockOptions.MAX_LEASE_TIME.minus(timing.slack())) >= 0,
                    "the store keeps lock '" + name + "' for " + ttl + " with a lease of " + LockOptions.MAX_LEASE_TIME
                            + " (an overflow, or a wrong unit, for long leases)"));
            assertTrue(lease.isHeld());
        }
        // Waits without practical end: no overflow in the deadline arithmetic.
        String free = kit.name();
        a.lock(free, kit.longLease()).acquire(Duration.ofSeconds(Long.MAX_VALUE)).close();
        a.lock(free, kit.longLease()).tryAcquire(Duration.ofSeconds(Long.MAX_VALUE))
                .orElseThrow(() -> new AssertionError("tryAcquire(Long.MAX_VALUE s) of the free lock '" + free
                        + "' returned no lease")).close();
        assertTrue(b.inspect(free).isEmpty(), "lock '" + free + "' stayed taken after its leases were closed");
    }
}
