package io.locksmith.tck.kits;

import io.locksmith.Capability;
import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockOptions;
import io.locksmith.LockTimeoutException;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Owner;
import io.locksmith.tck.FaultInjector;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static io.locksmith.tck.kits.KitContext.FAIR_ROUNDS;
import static io.locksmith.tck.kits.KitContext.HANDOFFS;
import static io.locksmith.tck.kits.KitContext.MAX_SPIN;
import static io.locksmith.tck.kits.KitContext.NEWCOMER_ATTEMPTS;
import static io.locksmith.tck.kits.KitContext.NOTIFICATION_BOUNCES;
import static io.locksmith.tck.kits.KitContext.SUBSCRIBERS;
import static io.locksmith.tck.kits.KitContext.TRY_ACQUIRE_SAMPLES;
import static io.locksmith.tck.kits.KitContext.WOKEN_ROUNDS;
import static io.locksmith.tck.kits.KitContext.closeQuietly;
import static io.locksmith.tck.kits.KitContext.hasCapability;
import static io.locksmith.tck.kits.KitContext.median;
import static io.locksmith.tck.kits.KitContext.millisSince;
import static io.locksmith.tck.kits.KitContext.requireCapability;
import static io.locksmith.tck.kits.KitContext.tckOwner;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of waiting (docs/SPEC.md R7): a bounded wait keeps its bound and leaves nothing behind, an interrupt
 * ends it, a released or expired lock reaches its waiter, by notification where the store declares
 * {@code RELEASE_NOTIFICATION} (every release and expiry of a wait, subscriptions independent), in arrival order
 * where it declares {@code FAIR}; {@code tryAcquire()} does not wait. The waits that ride out a store failure
 * (R7.7) are the fault kit's.
 */
public interface WaitingKit extends RuleKit {

    @Test
    default void required_r7_1_aBoundedWaitTimesOutAndLeavesNothingBehind() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        LockClient c = kit.client();
        Lease held = a.lock(name, kit.longLease()).acquire(timing.slack());
        DistributedLock waiting = b.lock(name, kit.longLease());
        Duration wait = timing.shortWait();
        long start = System.nanoTime();
        LockTimeoutException timeout = assertThrows(LockTimeoutException.class, () -> waiting.acquire(wait),
                "acquire(" + wait + ") on a held lock must throw LockTimeoutException");
        long elapsed = System.nanoTime() - start;
        assertTrue(elapsed >= wait.toNanos(), "the wait of " + wait + " gave up early, after " + elapsed / 1_000_000 + " ms");
        assertTrue(elapsed <= wait.plus(timing.slack()).toNanos(), "the wait of " + wait + " overran: "
                + elapsed / 1_000_000 + " ms");
        assertEquals(name, timeout.lockName());
        assertTrue(waiting.tryAcquire(wait).isEmpty(), "tryAcquire(" + wait + ") got a held lock");
        assertEquals(0, b.heldCount(), "the timed-out client counts a held lock");
        held.close();
        kit.assertFree(c, name, null, "after timed-out waits and a release: the waits left something behind");
    }

    @Test
    default void required_r7_2_waitingIsInterruptibleAndLeavesNothingBehind() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        LockClient c = kit.client();
        Lease held = a.lock(name, kit.longLease()).acquire(timing.slack());
        AtomicBoolean flagSetAfterwards = new AtomicBoolean();
        Waiter waiter = kit.waiter("tck-interrupted-waiter", () -> {
            try {
                return b.lock(name, kit.longLease()).acquire(timing.slack().multipliedBy(5));
            } catch (LockInterruptedException e) {
                flagSetAfterwards.set(Thread.currentThread().isInterrupted());
                throw e;
            }
        });
        kit.within(timing.slack(), "the waiter to start waiting").until(waiter::isParked);
        waiter.thread.interrupt();
        Throwable outcome = waiter.outcome(timing.slack());
        assertTrue(outcome instanceof LockInterruptedException, "an interrupted wait must end with"
                + " LockInterruptedException, ended with " + outcome);
        assertTrue(flagSetAfterwards.get(), "the waiter's interrupt flag was not set again");
        assertEquals(0, b.heldCount(), "the interrupted client counts a held lock");
        held.close();
        kit.assertFree(c, name, null, "after an interrupted wait and a release: the wait left something behind");
    }

    @Test
    default void required_r7_3_aWaiterGetsTheLockWhenItIsReleased() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        Lease held = a.lock(name, kit.longLease()).acquire(timing.slack());
        Waiter waiter = kit.waiter("tck-waiter", () -> b.lock(name, kit.longLease()).acquire(timing.slack().multipliedBy(3)));
        kit.within(timing.slack(), "the waiter to start waiting").until(waiter::isParked);
        held.close();
        Lease handedOver = waiter.lease(timing.slack());
        assertTrue(handedOver.isHeld());
        if (hasCapability(a, Capability.FENCING)) {
            assertTrue(handedOver.fencingToken() > held.fencingToken(), "the waiter's token is not greater");
        }
        handedOver.close();
    }

    @Test
    default void optional_r7_4_handoffByNotification() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient a = kit.client();
        requireCapability(a, TckRule.R7_4);
        // The waiter's client is the kit's own, through the FaultInjector: it polls only every two slacks, so a
        // missing notification shows plainly, and the kit can hold its attempts to force the holder's bounces.
        SpiClient b = kit.spiClient(TckRule.R7_4, null, timing.slack().multipliedBy(2));
        FaultInjector gate = b.faults();
        String name = kit.name();
        Duration expiryTtl = kit.effectiveTtl(timing.shortLease());
        // A woken waiter reaches the store within this, or it was not woken: its poll comes a slack or more later.
        Duration wakeBound = timing.notificationLatency().multipliedBy(4);
        List<Long> afterRelease = new ArrayList<>();
        List<Long> afterExpiry = new ArrayList<>();
        // A fair store hands a released lock to its queued waiter: the holder cannot take it back, so no bounces.
        int bounces = hasCapability(a, Capability.FAIR) ? 0 : NOTIFICATION_BOUNCES;
        int allowedSlowReleases = (HANDOFFS * bounces + HANDOFFS / 2) / 5;
        int allowedSlowExpiries = (HANDOFFS / 2) / 5;
        for (int round = 0; round < HANDOFFS; round++) {
            boolean byExpiry = round % 2 == 1;
            long retakenAt = System.nanoTime();
            Lease held = a.lock(name, byExpiry && bounces == 0 ? kit.fixedShortLease() : kit.longLease()).acquire(timing.slack());
            long arrivedBefore = gate.waitingAttemptsArrived();
            Waiter waiter = kit.waiter("tck-notified-waiter", () -> b.client().lock(name, kit.longLease())
                    .acquire(timing.longLease()));
            // (With no bounces it may already have the lock of an expiry.)
            awaitWaitingAtTheStore(kit, gate, waiter, arrivedBefore);
            // The bounces: the holder lets go and takes the lock back while the waiter is held before the store,
            // so every release of one wait (one subscription), not only the first, must wake the waiter.
            for (int bounce = 0; bounce < bounces; bounce++) {
                // (An attempt at the store would race the holder's release and retake: on RedLock it can win a
                // majority of the masters in between.)
                holdWaitingAttempts(kit, gate);
                long releasedAt = System.nanoTime();
                held.close();
                // An attempt that reached the store after the release began: the waiter was woken (or polled).
                boolean woken = awaitQuietly(wakeBound, () -> gate.lastWaitingAttemptAt() - releasedAt >= 0);
                afterRelease.add(woken ? TimeUnit.NANOSECONDS.toMillis(gate.lastWaitingAttemptAt() - releasedAt)
                        : wakeBound.toMillis() + 1);
                boolean last = bounce == bounces - 1;
                retakenAt = System.nanoTime();
                held = a.lock(name, byExpiry && last ? kit.fixedShortLease() : kit.longLease()).tryAcquire().orElseThrow(
                        () -> new AssertionError("the holder could not take lock '" + name + "' back after releasing"
                                + " it, although the only waiter was held before the store"));
                gate.resumeWaitingAttempts();
                kit.within(timing.slack(), "the waiter to wait again after bounce " + bounce).until(
                        () -> gate.noWaitingAttemptInFlight() && waiter.isParked());
                // (After the last bounce of an expiry round the fixed short lease may run out meanwhile, and then the
                // waiter rightly has the lock.)
                assertTrue(byExpiry && last || !waiter.result.isDone(), "the waiter got lock '" + name + "' while"
                        + " another client held it");
            }
            long freedAt;
            if (byExpiry) {
                // The fixed lease was asked for at retakenAt: the store frees it by its TTL from then.
                Lease expiring = held;
                freedAt = retakenAt + expiryTtl.toNanos();
                Lease handedOver = waiter.lease(expiryTtl.plus(timing.slack().multipliedBy(3)));
                afterExpiry.add(TimeUnit.NANOSECONDS.toMillis(waiter.acquiredAt - freedAt));
                handedOver.close();
                expiring.close();
            } else {
                freedAt = System.nanoTime();
                held.close();
                Lease handedOver = waiter.lease(timing.slack().multipliedBy(3));
                afterRelease.add(TimeUnit.NANOSECONDS.toMillis(waiter.acquiredAt - freedAt));
                handedOver.close();
            }
            if (countOver(afterRelease, timing.notificationLatency()) > allowedSlowReleases
                    || countOver(afterExpiry, timing.expiryPrecision().plus(timing.notificationLatency())) > allowedSlowExpiries) {
                break;
            }
        }
        assertTrue(countOver(afterRelease, timing.notificationLatency()) <= allowedSlowReleases, "after releases of '"
                + name + "', a waiter on another client was woken after " + afterRelease + " ms (each wait saw "
                + bounces + " releases the holder took back, then a release or an expiry): more than "
                + allowedSlowReleases + " took over " + timing.notificationLatency().toMillis() + " ms (the 80th"
                + " percentile; " + (wakeBound.toMillis() + 1) + " means never woken). With a release notification every"
                + " release must wake the waiter, also the second one of a subscription");
        assertTrue(countOver(afterExpiry, timing.expiryPrecision().plus(timing.notificationLatency())) <= allowedSlowExpiries,
                "after expiries of '" + name + "' (TTL " + expiryTtl.toMillis() + " ms), a waiter on another client got"
                + " the lock " + afterExpiry + " ms after the TTL: more than " + allowedSlowExpiries + " over "
                + timing.expiryPrecision().plus(timing.notificationLatency()).toMillis() + " ms (the 80th percentile)."
                + " With a release notification an expiry must wake the waiter too, also after releases on the same"
                + " subscription");
    }

    @Test
    default void optional_r7_5_fairStoresServeWaitersInArrivalOrder() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient a = kit.client();
        requireCapability(a, TckRule.R7_5);
        String name = kit.name();
        Lease held = a.lock(name, kit.longLease()).acquire(timing.slack());
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        List<Waiter> waiters = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            LockClient waiterClient = kit.client();
            int position = i;
            Waiter waiter = kit.waiter("tck-fair-waiter-" + i, () -> {
                Lease lease = waiterClient.lock(name, kit.longLease()).acquire(timing.slack().multipliedBy(4));
                order.add(position);
                lease.close();
                return lease;
            });
            kit.within(timing.slack(), "waiter " + i + " to queue").until(waiter::isParked);
            if (hasCapability(a, Capability.INSPECT_WAITERS)) {
                kit.within(timing.slack(), "waiter " + i + " to show in inspect").until(
                        () -> a.inspect(name).map(info -> info.waiters().size()).orElse(0) >= position);
            }
            waiters.add(waiter);
        }
        held.close();
        for (Waiter waiter : waiters) {
            waiter.lease(timing.slack().multipliedBy(3));
        }
        assertEquals(List.of(1, 2, 3), new ArrayList<>(order), "waiters were served out of their arrival order");
    }

    @Test
    default void optional_r7_6_inspectListsTheQueuedWaiters() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient a = kit.client();
        LockClient b = kit.client();
        requireCapability(a, TckRule.R7_6);
        String name = kit.name();
        Lease held = a.lock(name, kit.longLease()).acquire(timing.slack());
        Waiter waiter = kit.waiter("tck-listed-waiter", () -> b.lock(name, kit.longLease()).acquire(timing.slack().multipliedBy(3)));
        kit.within(timing.slack(), "the waiter on client " + b.clientId() + " to be listed by inspect").until(
                () -> a.inspect(name).map(info -> info.waiters().stream().anyMatch(
                        w -> w.clientId().equals(b.clientId()))).orElse(false));
        held.close();
        waiter.lease(timing.slack()).close();
    }

    @Test
    default void optional_r7_8_aWaiterIsNotifiedWhenALockExpires() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient a = kit.client();
        requireCapability(a, TckRule.R7_8);
        SpiClient b = kit.spiClient(TckRule.R7_8, null, timing.slack());
        List<Long> lateness = new ArrayList<>();
        Duration ttl = kit.effectiveTtl(timing.shortLease());
        for (int trial = 0; trial < 3; trial++) {
            String name = kit.name();
            long invokedAt = System.nanoTime();
            Lease expiring = a.lock(name, kit.fixedShortLease()).acquire(timing.slack());
            Waiter waiter = kit.waiter("tck-expiry-waiter", () -> b.client().lock(name, kit.longLease())
                    .acquire(ttl.plus(timing.slack().multipliedBy(3))));
            Lease next = waiter.lease(ttl.plus(timing.slack().multipliedBy(4)));
            lateness.add(TimeUnit.NANOSECONDS.toMillis(waiter.acquiredAt - invokedAt - ttl.toNanos()));
            next.close();
            expiring.close();
        }
        long median = lateness.stream().sorted().toList().get(1);
        assertTrue(median <= timing.expiryPrecision().plus(timing.notificationLatency()).toMillis(), "a waiter got an"
                + " expired lock " + lateness + " ms after its TTL of " + ttl.toMillis() + " ms (median " + median
                + "); with a release notification it must be told of an expiry too, not find it by polling");
        // At the SPI, with a waiter that tries again only when its subscription calls back, never on a poll: a
        // missing notice then fails every time, where a polling waiter can land near the expiry by luck. Once for a
        // lock granted before the waiter came and left to expire, once for a lock renewed half-way through its TTL
        // after the waiter came (session-bound stores have no TTL to move).
        SpiClient holder = kit.spiClient(TckRule.R7_8, null);
        Duration spiTtl = kit.effectiveTtl(timing.exactTtl());
        notifiedAtTheSpi(kit, holder, b.faults().provider(), spiTtl, false);
        if (!holder.client().capabilities().contains(Capability.SESSION_BOUND)) {
            notifiedAtTheSpi(kit, holder, b.faults().provider(), spiTtl, true);
        }
    }

    @Test
    default void required_r7_9_tryAcquireDoesNotBlock() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        List<Long> roundTrips = new ArrayList<>();
        List<Long> tries = new ArrayList<>();
        try (Lease held = a.lock(name, kit.longLease()).acquire(timing.slack())) {
            DistributedLock contender = b.lock(name, kit.longLease());
            for (int i = 0; i < TRY_ACQUIRE_SAMPLES; i++) {
                long start = System.nanoTime();
                b.inspect(name);
                roundTrips.add(System.nanoTime() - start);
                start = System.nanoTime();
                Optional<Lease> got = contender.tryAcquire();
                tries.add(System.nanoTime() - start);
                got.ifPresent(Lease::close);
                assertTrue(got.isEmpty(), "tryAcquire() got the held lock '" + name + "'");
            }
            assertTrue(held.isHeld());
        }
        // Judged on what tryAcquire() takes beyond the inspect made just before it, pair by pair: load slows both
        // alike, so the median of the differences stays near zero for one store request and keeps whatever a
        // provider waits. The allowance is 3 of the fastest round trips (a queueing store's tryAcquire writes and
        // deletes its queue entry) plus 25 ms, so a loaded machine does not widen it.
        List<Long> extra = new ArrayList<>();
        for (int i = 0; i < tries.size(); i++) {
            extra.add(tries.get(i) - roundTrips.get(i));
        }
        long fastestRoundTrip = roundTrips.stream().mapToLong(Long::longValue).min().orElseThrow();
        long extraTook = median(extra);
        long bound = 3 * fastestRoundTrip + timing.notificationLatency().toNanos() / 10;
        assertTrue(extraTook <= bound, "tryAcquire() on a held lock took " + extraTook / 1_000 + " us more than a store"
                + " round trip (inspect) made just before it (median of " + TRY_ACQUIRE_SAMPLES + " pairs; tryAcquire "
                + median(tries) / 1_000 + " us, inspect " + median(roundTrips) / 1_000 + " us, fastest "
                + fastestRoundTrip / 1_000 + " us): tryAcquire must not wait inside the provider (bound " + bound / 1_000
                + " us)");
    }

    @Test
    default void optional_r7_10_subscriptionsAreIndependentAndEndWhenClosed() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient holder = kit.client();
        requireCapability(holder, TckRule.R7_10);
        SpiClient leaving = kit.spiClient(TckRule.R7_10, null);
        SpiClient staying = kit.spiClient(TckRule.R7_10, null);
        LockProvider stayingProvider = staying.faults().provider();
        String name = kit.name();
        // Both subscribers are waiters with a place at the store, as the shared client's are: a queueing store
        // tells a subscriber of the changes of its own predecessor only (LockProvider.subscribe).
        AtomicInteger closedOneCalled = new AtomicInteger();
        Semaphore stayingCalled = new Semaphore(0);
        Lease held = holder.lock(name, kit.longLease()).acquire(timing.slack());
        AutoCloseable stayingSubscription = stayingProvider.subscribe(name, stayingCalled::release);
        Owner stayingOwner = tckOwner("tck-r7-10-staying");
        Owner leavingOwner = tckOwner("tck-r7-10-leaving");
        try {
            assertTrue(stayingSubscription != null, "subscribe returned null instead of a handle to end the"
                    + " subscription with: its callback can never be removed");
            assertTrue(kit.waitingAttempt(stayingProvider, name, stayingOwner) == null, "a waiter got the held lock '"
                    + name + "'");
            AutoCloseable left = leaving.faults().provider().subscribe(name, closedOneCalled::incrementAndGet);
            assertTrue(left != null, "subscribe returned null instead of a handle to end the subscription with: its"
                    + " callback can never be removed");
            assertTrue(kit.waitingAttempt(leaving.faults().provider(), name, leavingOwner) == null, "a waiter got the"
                    + " held lock '" + name + "'");
            closeQuietly(left);
            leaving.faults().provider().cancel(name, leavingOwner);
            int closedCallsBefore = closedOneCalled.get();
            for (int release = 1; release <= 2; release++) {
                held.close();
                Grant told = kit.grantOnCallBacks(stayingProvider, stayingCalled, name, stayingOwner, timing.slack());
                assertTrue(told != null, "after another client's subscription to '" + name + "' was closed, this"
                        + " one was not told of release " + release + " within " + timing.slack().toMillis() + " ms"
                        + " (a waiter that tries again only when its subscription calls back never got the lock):"
                        + " closing one subscription must remove only its own callback");
                stayingProvider.release(told);
                if (release == 1) {
                    held = holder.lock(name, kit.longLease()).acquire(timing.slack());
                    stayingCalled.drainPermits();
                    stayingOwner = tckOwner("tck-r7-10-staying");
                    assertTrue(kit.waitingAttempt(stayingProvider, name, stayingOwner) == null, "a waiter got the held"
                            + " lock '" + name + "'");
                }
            }
            assertEquals(closedCallsBefore, closedOneCalled.get(), "a closed subscription to '" + name + "' was still"
                    + " called on later releases: its handle did not end it");
        } finally {
            closeQuietly(stayingSubscription);
            stayingProvider.cancel(name, stayingOwner);
            held.close();
        }
    }

    @Test
    default void optional_r7_12_aFairStoreKeepsAFreedLockForItsQueueNotForNewcomers() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient holder = kit.client();
        requireCapability(holder, TckRule.R7_12);
        LockClient newcomer = kit.client();
        // The queued waiter is on the kit's own client: the kit holds its attempts before the store while the lock
        // is freed, so on every store the queue's claim on the free lock lasts as long as the newcomers try.
        SpiClient queued = kit.spiClient(TckRule.R7_12, null);
        FaultInjector gate = queued.faults();
        for (int round = 1; round <= FAIR_ROUNDS; round++) {
            String name = kit.name();
            Lease held = holder.lock(name, kit.longLease()).acquire(timing.slack());
            long arrivedBefore = gate.waitingAttemptsArrived();
            Waiter waiter = kit.waiter("tck-queued-waiter", () -> queued.client().lock(name, kit.longLease())
                    .acquire(timing.slack().multipliedBy(4)));
            awaitWaitingAtTheStore(kit, gate, waiter, arrivedBefore);
            assertFalse(waiter.result.isDone(), "the waiter got lock '" + name + "' while another client held it");
            holdWaitingAttempts(kit, gate);
            try {
                held.close();
                for (int attempt = 1; attempt <= NEWCOMER_ATTEMPTS; attempt++) {
                    Optional<Lease> barged = newcomer.lock(name, kit.longLease()).tryAcquire();
                    barged.ifPresent(Lease::close);
                    assertTrue(barged.isEmpty(), "a newcomer's tryAcquire() got lock '" + name + "' (round " + round
                            + ", attempt " + attempt + ") right after its holder released it, while another client's"
                            + " waiter was queued for it: a FAIR store must keep a freed lock for the head of its"
                            + " queue, also against a newcomer that does not wait");
                }
            } finally {
                gate.resumeWaitingAttempts();
            }
            Lease handedOver = waiter.lease(timing.slack().multipliedBy(2));
            assertTrue(handedOver.isHeld(), "the queued waiter's lease on '" + name + "' is not held");
            handedOver.close();
        }
    }

    @Test
    default void optional_r7_13_everySubscriberOfANameIsNotified() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient holder = kit.client();
        requireCapability(holder, TckRule.R7_13);
        String name = kit.name();
        Lease held = holder.lock(name, kit.longLease()).acquire(timing.slack());
        // Waiters at the SPI on clients of their own, each trying again only when its subscription calls back. Each
        // releases the lock at once when it gets it and keeps its subscription: the others must be told in turn.
        List<NotifiedWaiter> waiters = new ArrayList<>();
        try {
            for (int i = 0; i < SUBSCRIBERS; i++) {
                NotifiedWaiter waiter = new NotifiedWaiter(kit, kit.spiClient(TckRule.R7_13, null).faults().provider(),
                        name);
                waiters.add(waiter);
                assertFalse(waiter.gotItAtOnce(), "a waiter got lock '" + name + "' while another client held it");
            }
            held.close();
            Duration bound = timing.slack().multipliedBy(2);
            List<Future<Long>> turns = new ArrayList<>();
            for (NotifiedWaiter waiter : waiters) {
                turns.add(kit.submit(() -> {
                    long at = waiter.awaitGrant(bound);
                    waiter.release();
                    return at;
                }));
            }
            List<Integer> neverTold = new ArrayList<>();
            for (int i = 0; i < turns.size(); i++) {
                long at = turns.get(i).get(bound.plus(timing.slack()).toMillis(), TimeUnit.MILLISECONDS);
                if (at == NotifiedWaiter.NEVER) {
                    neverTold.add(i + 1);
                }
            }
            assertTrue(neverTold.isEmpty(), "of " + SUBSCRIBERS + " waiters subscribed in turn to lock '" + name
                    + "', each on a client of its own and trying again only when its subscription calls back,"
                    + " subscriber(s) " + neverTold + " never got it within " + bound.toMillis() + " ms of its release"
                    + " by the holder, while the others got it and released it at once, keeping their subscriptions:"
                    + " the store must call every subscriber of a name, not only the first");
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new AssertionError("a waiter of lock '" + name + "' failed: " + e, e);
        } finally {
            waiters.forEach(NotifiedWaiter::close);
        }
    }

    @Test
    default void optional_r7_14_aWokenWaiterFindsTheLockFree() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient holder = kit.client();
        requireCapability(holder, TckRule.R7_14);
        LockProvider waiterProvider = kit.spiClient(TckRule.R7_14, null).faults().provider();
        Duration spinFor = timing.notificationLatency().compareTo(MAX_SPIN) < 0 ? timing.notificationLatency() : MAX_SPIN;
        for (int round = 1; round <= WOKEN_ROUNDS; round++) {
            String name = kit.name();
            Lease held = holder.lock(name, kit.longLease()).acquire(timing.slack());
            try (NotifiedWaiter waiter = new NotifiedWaiter(kit, waiterProvider, name)) {
                assertFalse(waiter.gotItAtOnce(), "a waiter got lock '" + name + "' while another client held it");
                // The waiter watches for its callback on a running thread, so that its attempt follows the callback
                // at once: a store that calls back before the release has deleted the lock has it find the lock taken.
                Future<Long> got = kit.submit(() -> waiter.awaitGrantAtOnce(timing.slack(), spinFor));
                assertTrue(waiter.awaitWatching(timing.slack()), "the waiter's thread did not start");
                held.close();
                long at;
                try {
                    at = got.get(timing.slack().multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException | ExecutionException
                         | TimeoutException e) {
                    throw new AssertionError("the waiter of lock '" + name + "' failed: " + e, e);
                }
                assertTrue(at != NotifiedWaiter.NEVER, "a waiter at the SPI that tries again the moment its"
                        + " subscription calls back did not get lock '" + name + "' within " + timing.slack().toMillis()
                        + " ms of its release (round " + round + "; " + waiter.callBacksSeen() + ")"
                        + (waiter.takenOnCallBacks() > 0 ? ": the store called back before the released lock was"
                        + " free, and did not call again once it was" : ": it was never called back (see R7.13)"));
            }
        }
    }

    /**
     * Waits until {@code waiter} waits at the store: it tried, subscribed, tried again and parked, with no attempt of
     * its client ({@code gate}) under way; or it already has the lock.
     */
    private static void awaitWaitingAtTheStore(KitContext kit, FaultInjector gate, Waiter waiter, long arrivedBefore) {
        kit.within(kit.timing().slack(), "the waiter to start waiting").until(() -> waiter.result.isDone()
                || gate.waitingAttemptsArrived() >= arrivedBefore + 2 && gate.noWaitingAttemptInFlight()
                && waiter.isParked());
    }

    /**
     * Holds the waiting attempts of {@code gate}'s client before the store, and waits until none is at the store:
     * an attempt that passed the gate just before the hold (a poll) would otherwise race what the rule does next.
     */
    private static void holdWaitingAttempts(KitContext kit, FaultInjector gate) {
        gate.holdWaitingAttempts();
        kit.within(kit.timing().slack(), "the waiter's attempt under way to end before the holder lets go")
                .until(gate::noWaitingAttemptAtTheStore);
    }

    /** How many of {@code millis} exceed {@code bound}. */
    private static long countOver(List<Long> millis, Duration bound) {
        return millis.stream().filter(value -> value > bound.toMillis()).count();
    }

    /** Waits until {@code condition} holds, at most {@code bound}; whether it held. */
    private static boolean awaitQuietly(Duration bound, BooleanSupplier condition) {
        long until = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - until >= 0) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return true;
    }

    /**
     * One check of R7.8 at the SPI: a lock granted to {@code holder} for {@code ttl} (renewed half-way through it
     * when {@code renew}) must reach a {@link NotifiedWaiter} that came after the grant. A waiter that comes only
     * after the expiry (a loaded machine), or a renewal that comes too late, checks nothing: it is tried again
     * with a fresh name, three times at most.
     */
    private void notifiedAtTheSpi(KitContext kit, SpiClient holder, LockProvider waiterProvider, Duration ttl,
                                  boolean renew) {
        TckTiming timing = kit.timing();
        String what = renew ? "renewed half-way through its TTL after the waiter came: the notice must follow the"
                + " renewal, not the first TTL" : "granted before the waiter came and left to expire";
        long nearTheEnd = ttl.toNanos() - timing.expiryPrecision().toNanos();
        for (int attempt = 1; attempt <= 3; attempt++) {
            String name = kit.name();
            long grantedAt = System.nanoTime();
            Lease lease = holder.client().lock(name, LockOptions.builder().leaseTime(ttl).fixedLease().build())
                    .acquire(timing.slack());
            Grant grant = holder.faults().lastGrant(name).orElseThrow();
            try (NotifiedWaiter waiter = new NotifiedWaiter(kit, waiterProvider, name)) {
                if (waiter.gotItAtOnce()) {
                    assertTrue(System.nanoTime() - grantedAt >= nearTheEnd, "a waiter at the SPI got lock '" + name
                            + "' " + millisSince(grantedAt) + " ms after it was granted for " + ttl.toMillis() + " ms");
                    continue;
                }
                long from = grantedAt;
                if (renew) {
                    kit.waitFor(Duration.ofNanos(Math.max(0, grantedAt + ttl.toNanos() / 2 - System.nanoTime())));
                    from = System.nanoTime();
                    boolean renewed = holder.faults().provider().renew(grant, ttl);
                    if (!renewed && from - grantedAt >= nearTheEnd) {
                        continue;
                    }
                    assertTrue(renewed, "renewing the held lock '" + name + "' half-way through its TTL of " + ttl
                            + " failed");
                }
                Duration bound = ttl.plus(timing.expiryPrecision()).plus(timing.notificationLatency()).plus(timing.slack());
                assertToldOfExpiry(timing, waiter.awaitGrant(bound), name, from, ttl, what);
                return;
            } finally {
                lease.close();
            }
        }
        Assumptions.abort("Skipped the SPI part of R7.8 (lock " + what + "): three times the kit could not start a"
                + " waiter (or renew) before a TTL of " + ttl.toMillis() + " ms ran out; the machine is too loaded");
    }

    /** The waiter got the lock within the TTL plus the expiry precision plus the notification latency of {@code from}. */
    private static void assertToldOfExpiry(TckTiming timing, long acquiredAt, String name, long from, Duration ttl,
                                           String what) {
        long late = TimeUnit.NANOSECONDS.toMillis(acquiredAt - from - ttl.toNanos());
        long allowed = timing.expiryPrecision().plus(timing.notificationLatency()).toMillis();
        assertTrue(acquiredAt != NotifiedWaiter.NEVER && late <= allowed, "a waiter at the SPI that tries again only"
                + " when its subscription calls back " + (acquiredAt == NotifiedWaiter.NEVER ? "never got" : "got")
                + " lock '" + name + "'" + (acquiredAt == NotifiedWaiter.NEVER ? "" : " " + late + " ms") + " after its"
                + " TTL of " + ttl.toMillis() + " ms ran out (at most " + allowed + " ms allowed); the lock was " + what);
    }
}
