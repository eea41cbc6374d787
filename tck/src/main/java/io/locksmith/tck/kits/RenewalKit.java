package io.locksmith.tck.kits;

import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockLostException;
import io.locksmith.LockOptions;
import io.locksmith.LossReason;
import io.locksmith.spi.Grant;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static io.locksmith.tck.kits.KitContext.requireCapability;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of renewal and loss (docs/SPEC.md R6): renewal keeps a held lock, sets its TTL, and stops at release
 * and at the maximum hold; every loss (the store's lock gone, a fixed lease run out, a lock that vanished before
 * its release) is reported to the holder; batch renewal answers per request.
 */
public interface RenewalKit extends RuleKit {

    @Test
    default void required_r6_1_renewalKeepsAHeldLockAlivePastItsTtl() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        try (Lease lease = a.lock(name, kit.renewingShortLease()).acquire(timing.slack())) {
            kit.waitFor(timing.shortLease().multipliedBy(3));
            assertTrue(lease.isHeld(), "a renewing lease with a TTL of " + timing.shortLease()
                    + " was lost after three TTLs");
            lease.ensureHeld();
            assertTrue(b.lock(name, kit.longLease()).tryAcquire().isEmpty(), "another client took lock '" + name
                    + "' from a renewing holder after three TTLs");
            assertEquals(lease.fencingToken(), b.inspect(name).map(LockInfo::fencingToken).orElse(null),
                    "renewal changed the holder or token in the store");
        }
    }

    @Test
    default void required_r6_2_renewalStopsAtRelease() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        LockClient c = kit.client();
        Lease renewing = a.lock(name, kit.renewingShortLease()).acquire(timing.slack());
        kit.waitFor(timing.shortLease());
        assertTrue(renewing.isHeld(), "a renewing lease on '" + name + "' was lost within one lease (see R6.1)");
        renewing.close();
        Lease fixed = b.lock(name, kit.fixedShortLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                "lock '" + name + "' released by a renewing holder was not free at once"));
        Optional<Lease> after = c.lock(name, kit.longLease()).tryAcquire(timing.shortLease().plus(timing.slack()));
        assertTrue(after.isPresent(), "the next holder's fixed lease of " + timing.shortLease()
                + " never ran out: the released holder's renewal kept extending lock '" + name + "'");
        after.get().close();
        fixed.close();
    }

    @Test
    default void required_r6_3_renewalStopsAtTheMaximumHold() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        Duration maxHold = timing.shortLease().multipliedBy(2);
        LockOptions options = LockOptions.builder().leaseTime(timing.shortLease()).maxHold(maxHold).build();
        Lease lease = a.lock(name, options).acquire(timing.slack());
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        Duration bound = maxHold.plus(timing.shortLease()).plus(timing.slack());
        Optional<Lease> next = b.lock(name, kit.longLease()).tryAcquire(bound);
        assertTrue(next.isPresent(), "lock '" + name + "' with a maximum hold of " + maxHold + " and a TTL of "
                + timing.shortLease() + " was still taken after " + bound);
        kit.within(timing.slack(), "the holder to be told its lease passed the maximum hold").until(() -> lost.get() != null);
        assertEquals(LossReason.MAX_HOLD_EXCEEDED, lost.get().reason(), "wrong loss reason: " + lost.get());
        assertFalse(lease.isHeld());
        next.get().close();
        lease.close();
    }

    @Test
    default void required_r6_4_lossIsSignalledWhenTheStoreSideLockIsGone() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        kit.requireExpiryHook(TckRule.R6_4);
        String name = kit.name();
        LockClient a = kit.client();
        Lease lease = a.lock(name, kit.renewingShortLease()).acquire(timing.slack());
        AtomicInteger callbacks = new AtomicInteger();
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(event -> {
            lost.set(event);
            callbacks.incrementAndGet();
        });
        kit.expireBehindClientsBack(name);
        kit.within(timing.shortLease().plus(timing.slack()), "the holder to be told that the store lost lock '" + name
                + "' (the renewal must answer false)").until(() -> lost.get() != null);
        assertFalse(lease.isHeld(), "isHeld() is still true after the loss was signalled");
        LockLostException thrown = assertThrows(LockLostException.class, lease::ensureHeld,
                "ensureHeld() must throw after the loss");
        assertEquals(name, thrown.lockName());
        assertEquals(name, lost.get().lockName());
        assertEquals(lease.fencingToken(), lost.get().fencingToken());
        AtomicReference<LeaseLostEvent> late = new AtomicReference<>();
        lease.onLost(late::set);
        assertEquals(lost.get(), late.get(), "a callback added after the loss must run at once with the same event");
        assertEquals(1, callbacks.get(), "the loss callback ran more than once");
        lease.close();
    }

    @Test
    default void required_r6_5_aFixedLeaseIsReportedLostWhenItRunsOut() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        Lease lease = a.lock(name, kit.fixedShortLease()).acquire(timing.slack());
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        kit.within(timing.shortLease().plus(timing.slack()), "the fixed lease of " + timing.shortLease()
                + " to be reported lost").until(() -> lost.get() != null);
        assertEquals(LossReason.EXPIRED, lost.get().reason(), "wrong loss reason: " + lost.get());
        assertFalse(lease.isHeld());
        assertThrows(LockLostException.class, lease::ensureHeld);
        lease.close();
    }

    @Test
    default void optional_r6_6_batchRenewalKeepsManyLeasesAlive() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient b = kit.client();
        requireCapability(b, TckRule.R6_6);
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            leases.add(b.lock(kit.name(), kit.renewingShortLease()).acquire(timing.slack()));
        }
        kit.waitFor(timing.shortLease().multipliedBy(3));
        for (Lease lease : leases) {
            assertTrue(lease.isHeld(), "lease on '" + lease.lockName() + "' was lost while renewed in a batch");
        }
        leases.forEach(Lease::close);
        // Mixed TTLs, mixed held and lost, in a shuffled order: each answer and each TTL must be the request's own.
        SpiClient a = kit.spiClient(TckRule.R6_6, null);
        LockClient c = kit.client();
        List<io.locksmith.spi.RenewRequest> requests = new ArrayList<>();
        List<Boolean> expected = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Duration ttl = kit.effectiveTtl(timing.slack().multipliedBy(3L * (i + 1)));
            String name = kit.name();
            a.client().lock(name, LockOptions.builder().leaseTime(ttl).fixedLease().build()).acquire(timing.slack());
            Grant grant = a.faults().lastGrant(name).orElseThrow();
            boolean keep = i % 3 != 1;
            if (!keep) {
                kit.requireExpiryHook(TckRule.R6_6);
                kit.expireBehindClientsBack(name);
                c.lock(name, LockOptions.builder().leaseTime(timing.slack().multipliedBy(2)).fixedLease().build())
                        .tryAcquire(timing.slack()).orElseThrow(() -> new AssertionError("lock '" + name
                                + "' was expired through the hook but another client could not take it"));
            }
            requests.add(new io.locksmith.spi.RenewRequest(grant, ttl));
            expected.add(keep);
        }
        List<Integer> order = new ArrayList<>(List.of(3, 0, 5, 1, 4, 2));
        List<io.locksmith.spi.RenewRequest> shuffled = order.stream().map(requests::get).toList();
        List<Boolean> results = a.faults().provider().renewAll(shuffled);
        assertEquals(order.stream().map(expected::get).toList(), results, "renewAll answered out of order or wrongly for"
                + " a batch of held and lost locks (requests " + order + ", lost ones are 1 and 4)");
        for (int i = 0; i < requests.size(); i++) {
            io.locksmith.spi.RenewRequest request = requests.get(i);
            String name = request.grant().name();
            LockInfo info = c.inspect(name).orElseThrow(() -> new AssertionError("lock '" + name + "' is free after renewAll"));
            if (expected.get(i)) {
                assertEquals(request.grant().fencingToken(), info.fencingToken(), "lock '" + name + "' changed hands");
                int index = i;
                info.timeToLive().ifPresent(ttl -> assertTrue(ttl.compareTo(request.ttl().plus(timing.expiryPrecision())) <= 0
                        && ttl.compareTo(request.ttl().minus(timing.slack())) >= 0, "after renewAll, lock " + index + " '"
                        + name + "' has " + ttl + " left for a renewal to " + request.ttl() + ": another request's TTL"));
            } else {
                assertNotEquals(request.grant().fencingToken(), info.fencingToken(), "the lost lock '" + name + "' is back");
                info.timeToLive().ifPresent(ttl -> assertTrue(ttl.compareTo(timing.slack().multipliedBy(2)
                        .plus(timing.expiryPrecision())) <= 0, "renewAll extended the lock '" + name
                        + "' of another holder to " + ttl));
            }
        }
    }

    @Test
    default void required_r6_7_renewalSetsTheTtlItDoesNotAddToIt() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        // Three short leases long, renewed every short lease: a renewal thread stalled by a loaded machine does not
        // lose it, and by the time it is read it has been renewed two or three times.
        Duration requested = timing.shortLease().multipliedBy(3);
        Duration ttl = kit.effectiveTtl(requested);
        LockOptions options = LockOptions.builder().leaseTime(requested).maxHold(timing.longLease()).build();
        try (Lease lease = a.lock(name, options).acquire(timing.slack())) {
            kit.waitFor(requested);
            assertTrue(lease.isHeld(), "a renewing lease was lost after one TTL (see R6.1)");
            Optional<Duration> remaining = a.inspect(name).flatMap(LockInfo::timeToLive);
            Assumptions.assumeTrue(remaining.isPresent(), "Skipped because the store reports no time to live for its"
                    + " locks (a session-bound store): rule R6.7 (" + TckRule.R6_7.title() + ") reads it");
            assertTrue(remaining.get().compareTo(ttl.plus(timing.expiryPrecision())) <= 0, "after renewals every "
                    + ttl.dividedBy(3).toMillis() + " ms of a lease of " + ttl.toMillis() + " ms the store keeps lock '"
                    + name + "' for " + remaining.get().toMillis() + " ms more: a renewal must set the TTL, not add to it"
                    + " (a crashed holder would block the lock for many leases)");
        }
    }

    @Test
    default void required_r6_8_closingALeaseWhoseLockVanishedReportsTheLoss() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient a = kit.client();
        // The other side first: a release that removed the owner's lock must answer true, or every clean close
        // reports a loss that did not happen.
        String heldName = kit.name();
        Lease held = a.lock(heldName, kit.longLease()).acquire(timing.slack());
        AtomicReference<LeaseLostEvent> heldLost = new AtomicReference<>();
        held.onLost(heldLost::set);
        held.close();
        assertTrue(heldLost.get() == null, "closing a lease whose lock was still held reported a loss ("
                + heldLost.get() + "): release must answer true when it removed the owner's lock");
        kit.requireExpiryHook(TckRule.R6_8);
        String name = kit.name();
        Lease lease = a.lock(name, kit.longLease()).acquire(timing.slack());
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        kit.expireBehindClientsBack(name);
        kit.awaitDropped(a, name, lease.fencingToken());
        long start = System.nanoTime();
        lease.close();
        long took = System.nanoTime() - start;
        assertTrue(lost.get() != null, "closing a lease whose store lock had vanished (deleted behind its back) did not"
                + " report the loss: release must answer false when it removed nothing");
        assertTrue(took <= timing.slack().toNanos(), "closing the lease took " + took / 1_000_000 + " ms");
        assertFalse(lease.isHeld());
    }
}
