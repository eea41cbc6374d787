package io.locksmith.tck.kits;

import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.spi.Grant;
import io.locksmith.tck.RawStoreSession;
import io.locksmith.tck.RawStoreSession.Identity;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of ownership (docs/SPEC.md R2): release and renewal are owner-checked, per holding and not per client;
 * a release frees the lock at once; every holder has an identity of its own that the store shows; and, where the store
 * declares {@code ACCESS_CONTROL}, no other identity can touch a held lock with the store's own commands (R2.6).
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

    @Test
    default void optional_r2_6_anotherIdentityCannotTakeFreeExtendOrReadAHeldLock() throws Exception {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient a = kit.client();
        KitContext.requireCapability(a, TckRule.R2_6);
        LockClient c = kit.client();
        RawStoreSession own = kit.rawStoreSession(TckRule.R2_6, Identity.APPLICATION).orElseThrow();
        // The control: with the application's own credentials the same commands reach the lock's records. Without
        // it a hook that attacks the wrong keys, or none, would pass every foreign identity below.
        String control = kit.name();
        Lease controlLease = a.lock(control, kit.longLease()).acquire(timing.slack());
        String seen = own.read(control).orElse("");
        assertTrue(seen.contains(a.clientId()), "the control failed: rawStoreSession(APPLICATION).read('" + control
                + "') shows '" + seen + "', not the holder's client id " + a.clientId() + ": the hook does not reach"
                + " the lock's records, so the rule cannot judge the other identities");
        own.delete(control);
        kit.within(timing.slack(), "the control: lock '" + control + "' to be free after rawStoreSession(APPLICATION)"
                + ".delete (if it stays held, the hook does not reach the lock's records)").until(() -> c.lock(control,
                kit.longLease()).tryAcquire().map(taken -> {
                    taken.close();
                    return true;
                }).orElse(false));
        controlLease.close();
        for (Identity identity : List.of(Identity.OTHER_USER, Identity.WRONG_PASSWORD, Identity.NO_CREDENTIALS)) {
            Optional<RawStoreSession> opened = kit.rawStoreSession(TckRule.R2_6, identity);
            if (opened.isEmpty()) {
                // Refused at login: such a client has nothing to attack with. Another user with its own password is
                // let in by every store, and is the attacker the rule needs.
                assertTrue(identity != Identity.OTHER_USER, "rawStoreSession(OTHER_USER) could not open: the rule"
                        + " needs another user the store lets in (with rights elsewhere, not on the lock's records)");
                continue;
            }
            RawStoreSession foreign = opened.get();
            String name = kit.name();
            Lease lease = a.lock(name, kit.longLease()).acquire(timing.slack());
            String refusals = attempt(() -> {
                foreign.delete(name);
                return null;
            });
            assertStillHeld(kit, a, c, lease, name, "a raw session as " + identity + " deleted its records" + refusals);
            refusals = attempt(() -> {
                foreign.extend(name, LockOptions.MAX_LEASE_TIME);
                return null;
            });
            assertStillHeld(kit, a, c, lease, name, "a raw session as " + identity + " extended it to "
                    + LockOptions.MAX_LEASE_TIME + refusals);
            refusals = attempt(() -> {
                foreign.takeOver(name);
                return null;
            });
            assertStillHeld(kit, a, c, lease, name, "a raw session as " + identity + " wrote a holding of its own"
                    + refusals);
            Optional<String> read = Optional.empty();
            try {
                read = foreign.read(name);
            } catch (Exception refused) {
                // what the store answers a read it refuses
            }
            assertFalse(read.orElse("").contains(a.clientId()), "a raw session as " + identity + " read the holder of"
                    + " lock '" + name + "': " + read.orElse(""));
            lease.close();
            kit.assertFree(c, name, null, "after its holder released it: something " + identity + " wrote stayed"
                    + " behind (a queued node, a record of its own)");
        }
    }

    /** Runs one attack; the store's refusal is expected and kept for the message, the effect is judged after. */
    private static String attempt(java.util.concurrent.Callable<Void> attack) {
        try {
            attack.call();
            return " (the store did not refuse the command)";
        } catch (Exception refused) {
            return " (although the store answered " + refused + ")";
        }
    }

    /** The holder still holds: its lease, inspect, its token, a TTL no longer than it asked for, nobody else let in. */
    private static void assertStillHeld(KitContext kit, LockClient holder, LockClient third, Lease lease, String name,
                                        String attack) {
        String after = "lock '" + name + "' after " + attack;
        assertTrue(lease.isHeld(), "the holder lost " + after);
        LockInfo info = third.inspect(name).orElseThrow(() -> new AssertionError("inspect shows no holder of " + after));
        assertEquals(holder.clientId(), info.holder().clientId(), "inspect shows another holder of " + after);
        assertEquals(lease.fencingToken(), info.fencingToken(), "inspect shows another token for " + after);
        Duration asked = kit.timing().longLease();
        info.timeToLive().ifPresent(ttl -> assertTrue(ttl.compareTo(asked.plus(kit.timing().expiryPrecision())) <= 0,
                "the holder asked for " + asked + " but the store keeps " + after + " for " + ttl));
        third.lock(name, kit.longLease()).tryAcquire().ifPresent(taken -> {
            taken.close();
            throw new AssertionError("a third client took " + after);
        });
    }
}
