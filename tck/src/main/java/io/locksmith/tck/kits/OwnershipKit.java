package io.locksmith.tck.kits;

import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.spi.Grant;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of ownership (docs/SPEC.md R2): release and renewal are owner-checked, per holding and not per client;
 * a release frees the lock at once; every holder has an identity of its own that the store shows.
 */
public interface OwnershipKit extends RuleKit {

    @Test
    default void required_r2_1_releaseByNonOwnerMustNotDeleteTheNewHoldersLock() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        // Where the kit can open A's client itself, A's stale grant is also released at the SPI, synchronously: the
        // client may release a lease it knows ran out in the background, after the check below.
        SpiClient spiA = kit.supportsStoreUri() ? kit.spiClient(TckRule.R2_1, null) : null;
        LockClient a = spiA != null ? spiA.client() : kit.client();
        LockClient b = kit.client();
        LockClient c = kit.client();
        Lease stale = a.lock(name, kit.fixedShortLease()).acquire(timing.slack());
        Lease current = b.lock(name, kit.longLease()).tryAcquire(timing.shortLease().plus(timing.slack())).orElseThrow(
                () -> new AssertionError("the first holder's fixed lease of " + timing.shortLease()
                        + " ran out but the lock stayed taken (see R3.1)"));
        stale.close();
        if (spiA != null) {
            Grant staleGrant = spiA.faults().lastGrant(name).orElseThrow();
            assertFalse(spiA.faults().provider().release(staleGrant), "the release of holder A's stale grant (token "
                    + staleGrant.fencingToken() + ") answered true, although lock '" + name + "' was holder B's (token "
                    + current.fencingToken() + ")");
        } else {
            // The client already counts A's lease lost, so closing it releases it in the background (no blocking store
            // call). Watch the lock long enough for that release to land, on a loaded machine too, before judging.
            long watchUntil = System.nanoTime() + timing.shortLease().toNanos();
            kit.within(timing.slack().multipliedBy(2), "lock '" + name + "' to be watched after holder A's late release")
                    .until(() -> System.nanoTime() - watchUntil >= 0 || !Objects.equals(current.fencingToken(),
                            c.inspect(name).map(LockInfo::fencingToken).orElse(null)));
        }
        assertTrue(c.lock(name, kit.longLease()).tryAcquire().isEmpty(), "the late release of holder A (token "
                + stale.fencingToken() + "), whose lease had run out, freed lock '" + name
                + "' that now belongs to holder B (token " + current.fencingToken() + "): a third client took it");
        LockInfo info = c.inspect(name).orElseThrow(() -> new AssertionError("lock '" + name
                + "' is free after holder A's late release, although holder B holds it"));
        assertEquals(b.clientId(), info.holder().clientId(), "lock '" + name + "' should still be B's after A's late release");
        assertTrue(current.isHeld(), "holder B's lease was lost after A's late release");
        current.close();
    }

    @Test
    default void required_r2_2_renewalByNonOwnerMustNotExtendTheNewHoldersLock() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        kit.requireExpiryHook(TckRule.R2_2);
        LockClient a = kit.client();
        LockClient b = kit.client();
        // Three names at once: a renewal falling between the expiry and B's acquire would hide the fault once.
        List<String> names = List.of(kit.name(), kit.name(), kit.name());
        List<Lease> stale = new ArrayList<>();
        List<AtomicReference<LeaseLostEvent>> lost = new ArrayList<>();
        for (String name : names) {
            Lease lease = a.lock(name, kit.renewingShortLease()).acquire(timing.slack());
            AtomicReference<LeaseLostEvent> event = new AtomicReference<>();
            lease.onLost(event::set);
            stale.add(lease);
            lost.add(event);
        }
        List<Lease> current = new ArrayList<>();
        for (String name : names) {
            kit.expireBehindClientsBack(name);
            current.add(b.lock(name, kit.longLease()).tryAcquire(timing.slack()).orElseThrow(() -> new AssertionError(
                    "lock '" + name + "' was expired through the hook but another client could not take it")));
        }
        for (int i = 0; i < names.size(); i++) {
            AtomicReference<LeaseLostEvent> event = lost.get(i);
            kit.within(timing.shortLease().plus(timing.slack()), "holder A to learn its renewal failed after holder B took '"
                    + names.get(i) + "' (a renewal without an owner check extends the new holder's lock and answers true)")
                    .until(() -> event.get() != null);
            assertFalse(stale.get(i).isHeld(), "holder A still thinks it holds '" + names.get(i) + "'");
            assertTrue(current.get(i).isHeld(), "holder B lost '" + names.get(i) + "' to A's renewal");
            assertEquals(b.clientId(), b.inspect(names.get(i)).map(info -> info.holder().clientId()).orElse(null),
                    "lock '" + names.get(i) + "' should belong to holder B");
        }
        stale.forEach(Lease::close);
        current.forEach(Lease::close);
    }

    @Test
    default void required_r2_3_releaseFreesTheLockAtOnce() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        Lease lease = a.lock(name, kit.longLease()).acquire(timing.slack());
        lease.close();
        assertFalse(lease.isHeld(), "a closed lease still reports isHeld()");
        assertEquals(0, a.heldCount(), "the client still counts the released lock as held");
        try (Lease next = b.lock(name, kit.longLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                "lock '" + name + "' was released but another client could not take it right away"))) {
            assertTrue(next.isHeld());
        }
        lease.close(); // closing twice is a no-op
    }

    @Test
    default void required_r2_4_holderIdentityIsUniqueAndVisible() throws Exception {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient a = kit.client();
        LockClient b = kit.client();
        LockClient c = kit.client();
        assertEquals(3, Set.of(a.clientId(), b.clientId(), c.clientId()).size(),
                "three clients share an id: " + List.of(a.clientId(), b.clientId(), c.clientId()));
        String name = kit.name();
        try (Lease first = a.lock(name, kit.longLease()).acquire(timing.slack())) {
            assertEquals(a.clientId(), first.holder().clientId(), "the lease does not name its client");
            assertEquals(a.clientId(), b.inspect(name).map(info -> info.holder().clientId()).orElse(null),
                    "inspect does not name the holding client");
            String other = kit.name();
            try (Lease elsewhere = kit.inOtherThread(() -> a.lock(other, kit.longLease()).acquire(timing.slack()))) {
                assertNotEquals(first.holder().threadId(), elsewhere.holder().threadId(),
                        "two holdings from different threads carry the same thread id");
            }
        }
        try (Lease second = b.lock(name, kit.longLease()).acquire(timing.slack())) {
            assertEquals(second.holder().clientId(), c.inspect(name).map(info -> info.holder().clientId()).orElse(null),
                    "after a handover, inspect still names the previous holder");
        }
    }

    @Test
    default void required_r2_5_ownershipIsPerHoldingNotPerClient() throws Exception {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        SpiClient a = kit.spiClient(TckRule.R2_5, null);
        LockClient c = kit.client();
        String name = kit.name();
        Lease stale = a.client().lock(name, kit.fixedShortLease()).acquire(timing.slack());
        Grant staleGrant = a.faults().lastGrant(name).orElseThrow();
        Duration currentTtl = timing.slack().multipliedBy(2);
        Lease current = kit.inOtherThread(() -> a.client().lock(name, LockOptions.builder().leaseTime(currentTtl).fixedLease()
                .build()).tryAcquire(timing.shortLease().plus(timing.slack()))).orElseThrow(() -> new AssertionError(
                "the fixed lease of " + timing.shortLease() + " on '" + name + "' never ran out (see R3.1)"));
        Grant currentGrant = a.faults().lastGrant(name).orElseThrow();
        assertNotEquals(staleGrant.owner().id(), currentGrant.owner().id(), "two holdings share an owner id");
        boolean renewed = a.faults().provider().renew(staleGrant, timing.longLease());
        assertFalse(renewed, "the renewal of the expired holding (owner " + staleGrant.owner().id() + ") answered true"
                + " although the same client's next holding (owner " + currentGrant.owner().id() + ") holds '" + name
                + "': renew must compare the holding's owner id, not the client id");
        LockInfo info = c.inspect(name).orElseThrow(() -> new AssertionError("lock '" + name + "' is free after the"
                + " stale renewal, although the same client's next holding holds it"));
        info.timeToLive().ifPresent(ttl -> assertTrue(ttl.compareTo(currentTtl.plus(timing.expiryPrecision())) <= 0,
                "the stale holding's renewal to " + timing.longLease() + " extended the next holding's lock to " + ttl));
        stale.close();
        assertFalse(a.faults().provider().release(staleGrant), "the release of the expired holding answered true"
                + " although the same client's next holding holds '" + name + "'");
        assertTrue(c.lock(name, kit.longLease()).tryAcquire().isEmpty(), "the stale holding's release freed lock '" + name
                + "', now held by the same client's next holding (token " + current.fencingToken() + ")");
        assertEquals(current.fencingToken(), c.inspect(name).map(LockInfo::fencingToken).orElse(null),
                "lock '" + name + "' should still show the next holding's token");
        assertTrue(current.isHeld(), "the next holding was lost to the stale holding's release or renewal");
        current.close();
    }
}
