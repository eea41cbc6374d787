package io.locksmith.tck.kits;

import io.locksmith.Capability;
import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.LossReason;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static io.locksmith.tck.kits.KitContext.GENERATED_NAME_PAIRS;
import static io.locksmith.tck.kits.KitContext.LISTED_PAIRS;
import static io.locksmith.tck.kits.KitContext.SEED_PROPERTY;
import static io.locksmith.tck.kits.KitContext.assertClearError;
import static io.locksmith.tck.kits.KitContext.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of lifecycle, input and inspection (docs/SPEC.md R8): closing a client releases exactly its holdings;
 * bad input gets a clear error; every valid name is its own lock; inspect shows the holder, its token and trace id,
 * and an expired lock as free; the store declares the capabilities its user expects and names itself.
 */
public interface LifecycleKit extends RuleKit {

    @Test
    default void required_r8_1_closingAClientReleasesItsLocks() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        Lease lease = a.lock(name, kit.longLease()).acquire(timing.slack());
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        a.close();
        assertFalse(lease.isHeld(), "a lease of a closed client still reports isHeld()");
        assertTrue(lost.get() != null && lost.get().reason() == LossReason.CLIENT_CLOSED,
                "the holder was not told with CLIENT_CLOSED: " + lost.get());
        kit.assertFree(b, name, null, "(TTL " + timing.longLease() + ") right after its client was closed");
        lease.close();
        a.close();
    }

    @Test
    default void required_r8_2_badInputGetsAClearError() {
        KitContext kit = kitContext();
        LockClient a = kit.client();
        assertClearError(NullPointerException.class, () -> a.lock(null), "a null name");
        assertClearError(IllegalArgumentException.class, () -> a.lock(""), "an empty name");
        assertClearError(IllegalArgumentException.class, () -> a.lock("   "), "a blank name");
        assertClearError(IllegalArgumentException.class, () -> a.lock("x".repeat(513)), "a name of 513 characters");
        assertClearError(IllegalArgumentException.class, () -> a.lock("a\nb"), "a name with a line break");
        assertClearError(NullPointerException.class, () -> a.inspect(null), "inspect(null)");
        assertClearError(NullPointerException.class, () -> a.lock(kit.name(), null), "null options");
        DistributedLock lock = a.lock(kit.name(), kit.longLease());
        assertClearError(IllegalArgumentException.class, () -> lock.acquire(Duration.ofMillis(-1)), "a negative wait");
        assertClearError(IllegalArgumentException.class, () -> lock.tryAcquire(Duration.ofMillis(-1)), "a negative wait");
        assertClearError(NullPointerException.class, () -> lock.acquire(null), "a null wait");
        assertClearError(IllegalArgumentException.class, () -> LockOptions.builder().leaseTime(Duration.ZERO),
                "a zero lease time");
        assertTrue(a.inspect(lock.name()).isEmpty(), "rejected calls left lock '" + lock.name() + "' taken");
        LockClient closed = kit.client();
        DistributedLock lockOfClosed = closed.lock(kit.name(), kit.longLease());
        closed.close();
        assertClearError(IllegalStateException.class, () -> closed.lock(kit.name()), "lock() on a closed client");
        assertClearError(IllegalStateException.class, lockOfClosed::tryAcquire, "tryAcquire() on a closed client");
    }

    @Test
    default void required_r8_3_inspectShowsTheHoldersIdentityAndToken() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        assertTrue(b.inspect(name).isEmpty(), "inspect of a never-used lock is not empty");
        try (Lease lease = a.lock(name, kit.longLease()).acquire(timing.slack())) {
            LockInfo info = b.inspect(name).orElseThrow(() -> new AssertionError("inspect of a held lock is empty"));
            assertEquals(name, info.lockName());
            assertEquals(a.clientId(), info.holder().clientId(), "inspect names another client: " + info);
            assertEquals(Thread.currentThread().getName(), info.holder().thread(), "inspect names another thread: " + info);
            assertEquals(lease.holder(), info.holder(), "inspect shows another identity than the lease");
            assertEquals(lease.fencingToken(), info.fencingToken(), "inspect shows another token than the lease");
            info.timeToLive().ifPresent(ttl -> assertTrue(!ttl.isNegative() && ttl.compareTo(timing.longLease()) <= 0,
                    "inspect shows a time to live of " + ttl + " for a lease of " + timing.longLease()));
            assertEquals(info.holder(), b.lock(name, kit.longLease()).inspect().map(LockInfo::holder).orElse(null));
        }
        assertTrue(b.inspect(name).isEmpty(), "inspect of a released lock is not empty");
    }

    @Test
    default void required_r8_4_everyValidNameIsUsableAndDistinct() {
        KitContext kit = kitContext();
        String base = kit.name();
        List<String> names = List.of(base, base + "/child", base + "%2Fchild", base + "/", "/" + base, "../" + base,
                base + " with spaces", base + ":ключ:名前", base + "-\uD83D\uDD12", base + "*", base + "?", base + "{tag}",
                base + "\\", base + "..", base + "#frag", base + "&q=1", base + "'\"",
                (base + "-").repeat(20).substring(0, 512));
        assertEquals(names.size(), new HashSet<>(names).size());
        LockClient a = kit.client();
        LockClient b = kit.client();
        List<Lease> held = new ArrayList<>();
        try {
            for (String name : names) {
                held.add(a.lock(name, kit.longLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                        "could not take '" + name + "' while holding " + held.size() + " other names: two names map to one lock")));
            }
            for (Lease lease : held) {
                assertTrue(b.lock(lease.lockName(), kit.longLease()).tryAcquire().isEmpty(),
                        "another client took the held lock '" + lease.lockName() + "'");
                assertEquals(lease.fencingToken(), b.inspect(lease.lockName()).map(LockInfo::fencingToken).orElse(null),
                        "inspect of '" + lease.lockName() + "' does not show its holder's token");
            }
        } finally {
            held.forEach(Lease::close);
        }
        for (String name : names) {
            kit.assertFree(b, name, null, "after its release");
        }
    }

    @Test
    default void required_r8_5_generatedDistinctNamesAreDistinctLocks() {
        KitContext kit = kitContext();
        long seed = seed();
        SplittableRandom random = new SplittableRandom(seed);
        LockClient a = kit.client();
        LockClient b = kit.client();
        String prefix = "tck-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        for (int trial = 0; trial < GENERATED_NAME_PAIRS; trial++) {
            String[] pair = ConfusableNames.pair(prefix, random, trial);
            String first = pair[0];
            String second = pair[1];
            String where = "generated pair " + (trial + 1) + " (seed " + seed + ", rerun with -D" + SEED_PROPERTY + "="
                    + seed + "): " + ConfusableNames.describe(first) + " and " + ConfusableNames.describe(second);
            try (Lease one = a.lock(first, kit.longLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                    "could not take the free name " + where))) {
                Lease other = b.lock(second, kit.longLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                        "holding the first name blocked the second, distinct name: the store confused " + where));
                try (other) {
                    assertEquals(one.fencingToken(), b.inspect(first).map(LockInfo::fencingToken).orElse(null),
                            "inspect of the first name does not show its own holding: " + where);
                    assertEquals(other.fencingToken(), a.inspect(second).map(LockInfo::fencingToken).orElse(null),
                            "inspect of the second name does not show its own holding: " + where);
                    assertEquals(first, b.inspect(first).map(LockInfo::lockName).orElse(null), "inspect names another lock: " + where);
                }
                assertTrue(one.isHeld(), "releasing the second name lost the first: " + where);
                assertTrue(b.lock(first, kit.longLease()).tryAcquire().isEmpty(), "releasing the second name freed the first: " + where);
            }
        }
    }

    @Test
    default void required_r8_6_closingAClientReleasesExactlyItsOwnHoldings() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient a = kit.client();
        LockClient b = kit.client();
        String lostByA = kit.name();
        String heldByA = kit.name();
        Lease expiring = a.lock(lostByA, kit.fixedShortLease()).acquire(timing.slack());
        Lease kept = a.lock(heldByA, kit.longLease()).acquire(timing.slack());
        Lease bHolds = b.lock(lostByA, kit.longLease()).tryAcquire(timing.shortLease().plus(timing.slack())).orElseThrow(
                () -> new AssertionError("the fixed lease on '" + lostByA + "' never ran out (see R3.1)"));
        a.close();
        assertFalse(kept.isHeld());
        assertEquals(bHolds.fencingToken(), b.inspect(lostByA).map(LockInfo::fencingToken).orElse(null), "closing"
                + " client A released lock '" + lostByA + "' that A had lost and B now holds: close must release only the"
                + " client's current holdings, owner-checked");
        assertTrue(bHolds.isHeld());
        kit.assertFree(b, heldByA, null, "right after its client was closed");
        bHolds.close();
        expiring.close();
    }

    @Test
    default void required_r8_7_inspectShowsAnExpiredLockAsFree() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        Duration ttl = kit.effectiveTtl(timing.shortLease());
        Lease lease = a.lock(name, kit.fixedShortLease()).acquire(timing.slack());
        long grantedAt = System.nanoTime();
        assertTrue(b.inspect(name).isPresent(), "inspect of a held lock is empty");
        kit.waitFor(Duration.ofNanos(grantedAt + ttl.toNanos() + timing.expiryPrecision().toNanos() - System.nanoTime()));
        Optional<LockInfo> after = b.inspect(name);
        assertTrue(after.isEmpty(), "inspect of lock '" + name + "' still shows " + after.orElse(null) + " "
                + timing.expiryPrecision().toMillis() + " ms after its TTL of " + ttl.toMillis() + " ms ran out");
        lease.close();
    }

    @Test
    default void required_r8_8_theTraceIdReachesTheStore() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String trace = "trace-" + UUID.randomUUID().toString().replace("-", "");
        SpiClient traced = kit.spiClient(TckRule.R8_8, () -> trace);
        String name = kit.name();
        try (Lease lease = traced.client().lock(name, kit.longLease()).acquire(timing.slack())) {
            assertEquals(Optional.of(trace), lease.holder().trace(), "the lease does not carry the supplier's trace id");
            assertEquals(Optional.of(trace), traced.client().inspect(name).flatMap(info -> info.holder().trace()),
                    "inspect does not show the trace id set through the client's traceIdSupplier");
        }
        String mdcTrace = "mdc-" + UUID.randomUUID().toString().replace("-", "");
        org.slf4j.MDC.put("traceId", mdcTrace);
        try {
            if (!mdcTrace.equals(org.slf4j.MDC.get("traceId"))) {
                System.out.println("R8.8: the SLF4J binding on this class path has no working MDC; only the trace id"
                        + " supplier was checked");
                return;
            }
            SpiClient fromMdc = kit.spiClient(TckRule.R8_8, null);
            String other = kit.name();
            try (Lease lease = fromMdc.client().lock(other, kit.longLease()).acquire(timing.slack())) {
                assertEquals(Optional.of(mdcTrace), fromMdc.client().inspect(other).flatMap(info -> info.holder().trace()),
                        "inspect does not show the trace id of the MDC key 'traceId'");
            }
        } finally {
            org.slf4j.MDC.remove("traceId");
        }
    }

    @Test
    default void required_r8_11_theStoreDeclaresTheCapabilitiesItsUserExpects() {
        KitContext kit = kitContext();
        Set<Capability> expected;
        try {
            expected = Objects.requireNonNull(kit.expectedCapabilities(), "expectedCapabilities() returned null");
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("Skipped because the kit subclass " + kit.kitName() + " does not implement"
                    + " expectedCapabilities(): rule R8.11 compares the provider's declaration with what its user expects");
            return;
        }
        Set<Capability> declared = kit.client().capabilities();
        Set<Capability> missing = expected.isEmpty() ? EnumSet.noneOf(Capability.class) : EnumSet.copyOf(expected);
        missing.removeAll(declared);
        assertTrue(missing.isEmpty(), "the provider declares " + declared + " but " + kit.kitName()
                + " expects " + expected + ": " + missing + " is not declared, so the rules it switches on were"
                + " skipped instead of run");
    }

    @Test
    default void required_r8_12_describeNamesTheStore() {
        KitContext kit = kitContext();
        SpiClient a = kit.spiClient(TckRule.R8_12, null);
        String description = a.faults().storeProvider().describe();
        assertTrue(description != null && !description.isBlank(), "describe() answered '" + description + "': every"
                + " message about this store (failures, logs, lockctl) would name no store");
    }

    @Test
    default void required_r8_13_aListingMatchesInspect() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient a = kit.client();
        LockClient b = kit.client();
        String prefix = kit.name() + "/";
        try {
            b.list(prefix, timing.slack());
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("Skipped because the provider cannot list its locks (LockProvider.list): rule R8.13 ("
                    + TckRule.R8_13.title() + ") compares a listing with inspect");
        }
        long seed = seed();
        SplittableRandom random = new SplittableRandom(seed);
        // More names than a page of a store's scan, with the characters stores escape or match as patterns, and
        // generated names that differ only where a careless listing loses the difference.
        Set<String> names = new TreeSet<>(List.of(prefix + "a", prefix + "a/b", prefix + "a*", prefix + "a?",
                prefix + "[ab]", prefix + "{tag}", prefix + "with space", prefix + "ключ:名前", prefix + "%2F",
                prefix + "\\", prefix + "a%", prefix + "a_"));
        for (int family = 0; family < LISTED_PAIRS; family++) {
            names.addAll(List.of(ConfusableNames.pair(prefix, random, family)));
        }
        String where = "prefix '" + prefix + "' (seed " + seed + ", rerun with -D" + SEED_PROPERTY + "=" + seed + ")";
        List<Lease> held = new ArrayList<>();
        List<Lease> expiring = new ArrayList<>();
        try {
            // Left to expire without a release (first, so that they expire while the others are taken), released, and
            // just outside the prefix: none may be listed.
            List<String> expired = List.of(prefix + "expired-1", prefix + "expired-2");
            for (String name : expired) {
                expiring.add(a.lock(name, kit.fixedShortLease()).acquire(timing.slack()));
            }
            for (String name : names) {
                held.add(a.lock(name, kit.longLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                        "could not take the free name '" + name + "' under " + where)));
            }
            a.lock(prefix + "released", kit.longLease()).acquire(timing.slack()).close();
            held.add(a.lock(prefix.substring(0, prefix.length() - 1) + "-outside", kit.longLease()).acquire(timing.slack()));
            Duration expiry = kit.effectiveTtl(timing.shortLease()).plus(timing.expiryPrecision()).plus(timing.slack());
            kit.within(expiry, "inspect to show the locks " + expired + " free after their TTL (see R8.7)")
                    .until(() -> expired.stream().allMatch(name -> b.inspect(name).isEmpty()));

            List<LockInfo> listed = b.list(prefix, timing.slack());

            Set<String> listedNames = new TreeSet<>();
            listed.forEach(info -> listedNames.add(info.lockName()));
            Set<String> missing = new TreeSet<>(names);
            missing.removeAll(listedNames);
            Set<String> extra = new TreeSet<>(listedNames);
            extra.removeAll(names);
            assertTrue(missing.isEmpty() && extra.isEmpty() && listed.size() == names.size(), "the listing of " + where
                    + " has " + listed.size() + " entries for " + names.size() + " held locks: it leaves out "
                    + describe(missing) + " that inspect shows held, and shows " + describe(extra) + " that inspect"
                    + " shows free (expired without a release: " + expired + ", released: '" + prefix + "released',"
                    + " outside the prefix: '" + prefix.substring(0, prefix.length() - 1) + "-outside')");
            for (LockInfo info : listed) {
                LockInfo inspected = b.inspect(info.lockName()).orElseThrow(() -> new AssertionError("the listing of "
                        + where + " shows " + describe(Set.of(info.lockName())) + ", which inspect shows free"));
                assertEquals(inspected.fencingToken(), info.fencingToken(), "the listing and inspect show other tokens"
                        + " for " + describe(Set.of(info.lockName())) + " under " + where);
                assertEquals(inspected.holder(), info.holder(), "the listing and inspect show other holders for "
                        + describe(Set.of(info.lockName())) + " under " + where);
            }
        } finally {
            held.forEach(Lease::close);
            expiring.forEach(Lease::close);
        }
    }

    /** Names for a message, each as {@link ConfusableNames#describe} shows it (whitespace and look-alikes visible). */
    private static String describe(Set<String> names) {
        return names.isEmpty() ? "no name" : names.stream().map(ConfusableNames::describe).toList().toString();
    }
}
