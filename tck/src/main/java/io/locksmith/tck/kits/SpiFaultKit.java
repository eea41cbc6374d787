package io.locksmith.tck.kits;

import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.spi.LockProvider;
import io.locksmith.tck.FaultInjector;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static io.locksmith.tck.kits.KitContext.millisSince;
import static io.locksmith.tck.kits.KitContext.requireCapability;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault rules that need no network (docs/SPEC.md R9.11 to R9.13): faults injected at the SPI by the kit's
 * {@link io.locksmith.tck.FaultInjector} (an acquire, release or renewal whose request or reply was lost) and the
 * end of a store session, on every store, {@code mem://} included. The network faults are the fault kit's
 * ({@link io.locksmith.tck.fault.LockFaultTck}).
 */
public interface SpiFaultKit extends RuleKit {

    @Test
    default void required_r9_11_anAmbiguousAcquireAtTheSpiLeavesNoOrphan() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        SpiClient a = kit.spiClient(TckRule.R9_11, null);
        LockClient b = kit.client();
        for (FaultInjector.Moment moment : FaultInjector.Moment.values()) {
            String name = kit.name();
            a.faults().failNext(FaultInjector.Call.TRY_ACQUIRE, moment);
            Optional<Lease> outcome;
            try {
                outcome = a.client().lock(name, kit.longLease()).tryAcquire();
            } catch (io.locksmith.LockStoreException e) {
                outcome = Optional.empty();
            }
            assertFalse(a.faults().hasPending(), "the injected fault did not strike: the acquire never reached the provider");
            if (outcome.isPresent()) {
                assertTrue(outcome.get().isHeld());
                outcome.get().close();
            }
            Optional<Lease> next = b.lock(name, kit.longLease()).tryAcquire(timing.slack());
            assertTrue(next.isPresent(), "an acquire of '" + name + "' whose " + (moment == FaultInjector.Moment.AFTER_EFFECT
                    ? "reply was lost after the store granted it" : "request was lost") + " left the lock taken (TTL "
                    + timing.longLease() + ") with nobody holding it: releaseAmbiguous must remove the owner's lock");
            next.get().close();
        }
    }

    @Test
    default void required_r9_12_anAmbiguousReleaseOrRenewalLeavesNoOrphanAndNoFalseHolder() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        SpiClient a = kit.spiClient(TckRule.R9_12, null);
        LockClient b = kit.client();
        for (FaultInjector.Moment moment : FaultInjector.Moment.values()) {
            String name = kit.name();
            Lease lease = a.client().lock(name, kit.fixedShortLease()).acquire(timing.slack());
            a.faults().failNext(FaultInjector.Call.RELEASE, moment);
            try {
                lease.close();
            } catch (io.locksmith.LockStoreException e) {
                // The release's outcome is unknown to the client: what matters is what the store does next.
            }
            assertFalse(lease.isHeld(), "a lease whose release failed still reports isHeld()");
            Duration bound = moment == FaultInjector.Moment.AFTER_EFFECT ? timing.slack()
                    : kit.effectiveTtl(timing.shortLease()).plus(timing.slack());
            assertTrue(b.lock(name, kit.longLease()).tryAcquire(bound).map(next -> {
                next.close();
                return true;
            }).orElse(false), "after a release of '" + name + "' whose " + (moment == FaultInjector.Moment.AFTER_EFFECT
                    ? "reply" : "request") + " was lost, the lock stayed taken for more than " + bound);
        }
        String renewed = kit.name();
        Lease renewing = a.client().lock(renewed, kit.renewingShortLease()).acquire(timing.slack());
        a.faults().failNext(FaultInjector.Call.RENEW, FaultInjector.Moment.AFTER_EFFECT)
                .failNext(FaultInjector.Call.RENEW, FaultInjector.Moment.BEFORE_EFFECT);
        // Both failures strike the next renewals, unless the first one cost the lease (renewal then stops, rightly,
        // and the lease must say so): on a loaded machine a failed renewal may leave too little of a short lease.
        kit.within(timing.shortLease().multipliedBy(2).plus(timing.slack()), "both failing renewals to reach the provider,"
                + " or the lease to be reported lost").until(() -> !a.faults().hasPending() || !renewing.isHeld());
        if (renewing.isHeld()) {
            assertEquals(renewing.fencingToken(), b.inspect(renewed).map(LockInfo::fencingToken).orElse(null),
                    "the holder of '" + renewed + "' believes it holds the lock after two failed renewals, but the store"
                            + " does not have it");
        }
        renewing.close();
        kit.assertFree(b, renewed, timing.slack(), "after its holder closed it");
    }

    @Test
    default void optional_r9_13_theEndOfASessionIsReportedToEveryHolder() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        SpiClient s = kit.spiClient(TckRule.R9_13, null);
        requireCapability(s.client(), TckRule.R9_13);
        LockClient other = kit.client();
        String renewing = kit.name();
        String fixed = kit.name();
        Lease renewed = s.client().lock(renewing, kit.longLease()).acquire(timing.slack());
        // A fixed lease the client never renews: only the provider's own report can tell its holder.
        Lease fixedLease = s.client().lock(fixed, LockOptions.builder().leaseTime(timing.longLease()).fixedLease().build())
                .acquire(timing.slack());
        AtomicReference<LeaseLostEvent> renewedLost = new AtomicReference<>();
        AtomicReference<LeaseLostEvent> fixedLost = new AtomicReference<>();
        renewed.onLost(renewedLost::set);
        fixedLease.onLost(fixedLost::set);
        kit.endStoreSession(TckRule.R9_13, s.faults().storeProvider());
        long endedAt = System.nanoTime();
        kit.within(timing.slack(), "both holders on the ended session to be told (renewing '" + renewing + "', fixed '"
                + fixed + "'): the provider must report the session's grants through its LossListener")
                .until(() -> renewedLost.get() != null && fixedLost.get() != null);
        long toldAfter = millisSince(endedAt);
        assertFalse(renewed.isHeld(), "isHeld() is still true after the session ended");
        assertFalse(fixedLease.isHeld(), "isHeld() of the fixed lease is still true after the session ended");
        assertEquals(fixed, fixedLost.get().lockName());
        assertEquals(fixedLease.fencingToken(), fixedLost.get().fencingToken());
        for (String name : List.of(renewing, fixed)) {
            kit.assertFree(other, name, timing.slack(), "after its holder's session ended");
        }
        // The provider goes on with a new session: the client is not broken by the end of the old one.
        Lease again = s.client().lock(kit.name(), kit.longLease()).acquire(timing.slack().multipliedBy(2));
        assertTrue(again.isHeld(), "the client could not lock after its session ended");
        again.close();
        renewed.close();
        fixedLease.close();
        System.out.println("R9.13: the holders were told " + toldAfter + " ms after the session ended");
    }
}
