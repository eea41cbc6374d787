package io.locksmith.tck.kits;

import io.locksmith.DistributedSemaphore;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import io.locksmith.PermitLease;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of the semaphore with leased permits (docs/SPEC.md R11): never more permits held than it has, all or
 * nothing, a crashed holder's permits back at their lease's end, release by id owner-checked, a waiting acquire
 * served before newcomers, tokens in order, and clear errors for bad input on every primitive.
 */
public interface SemaphoreKit extends RuleKit {

    @Test
    default void required_r11_1_neverMorePermitsThanItHasAndAllOrNothing() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        DistributedSemaphore a = kit.client().semaphore(name, 3, kit.longLease());
        DistributedSemaphore b = kit.client().semaphore(name, 3, kit.longLease());
        try (PermitLease one = a.acquire(1, timing.slack()); PermitLease two = b.acquire(2, timing.slack())) {
            assertEquals(2, two.permits(), "a lease of 2 permits says it holds " + two.permits());
            assertTrue(a.tryAcquire(1, Duration.ZERO).isEmpty(), "a 4th permit of semaphore '" + name
                    + "' (3 permits) was granted while 3 were held");
            assertTrue(b.tryAcquire(1, timing.shortWait()).isEmpty(), "a 4th permit of semaphore '" + name
                    + "' was granted after a bounded wait while 3 were held");
            List<io.locksmith.LockInfo> holders = a.holders(timing.slack());
            assertEquals(3, holders.size(), "the store should show 3 held permits of '" + name + "'");
            String thread = Thread.currentThread().getName();
            for (io.locksmith.LockInfo holder : holders) {
                assertEquals(thread, holder.holder().thread(), "a permit of '" + name + "' shows the thread of "
                        + holder.holder() + ", not the one that acquired it (" + thread + ")");
            }
            assertTrue(one.isHeld() && two.isHeld(), "a holder lost its permits while others tried to take more");
        }
        try (PermitLease one = a.acquire(1, timing.slack())) {
            assertTrue(b.tryAcquire(3, timing.shortWait()).isEmpty(), "3 permits of '" + name
                    + "' were granted while 1 of 3 was held");
            PermitLease rest = b.tryAcquire(2, timing.slack()).orElseThrow(() -> new AssertionError(
                    "after a refused acquire of 3 permits, the 2 free permits of '" + name + "' could not be taken:"
                            + " the refused acquire kept some (all or nothing)"));
            rest.close();
            assertTrue(one.isHeld());
        }
        a.acquire(3, timing.slack()).close();
    }

    @Test
    default void required_r11_2_contentionNeverExceedsThePermits() throws Exception {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        int permits = 2;
        AtomicInteger inUse = new AtomicInteger();
        AtomicInteger mostInUse = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> workers = new ArrayList<>();
        long end = System.nanoTime() + timing.workloadDuration().toNanos();
        for (int c = 0; c < 3; c++) {
            DistributedSemaphore semaphore = kit.client().semaphore(name, permits, kit.longLease());
            for (int t = 0; t < 2; t++) {
                workers.add(kit.submit(() -> {
                    while (System.nanoTime() - end < 0 && completed.get() < KitContext.PRIMITIVE_WORKLOAD_HOLDINGS
                            && !Thread.currentThread().isInterrupted()) {
                        int count = ThreadLocalRandom.current().nextInt(1, permits + 1);
                        Optional<PermitLease> lease = semaphore.tryAcquire(count, timing.slack());
                        if (lease.isEmpty()) {
                            continue;
                        }
                        try (PermitLease held = lease.get()) {
                            int now = inUse.addAndGet(count);
                            mostInUse.accumulateAndGet(now, Math::max);
                            if (now > permits) {
                                violations.add(now + " permits in use (token " + held.fencingToken() + ")");
                            }
                            TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextInt(1, 4));
                            inUse.addAndGet(-count);
                        }
                        completed.incrementAndGet();
                    }
                    return null;
                }));
            }
        }
        for (Future<?> worker : workers) {
            worker.get(timing.workloadDuration().plus(timing.slack().multipliedBy(3)).toMillis(), TimeUnit.MILLISECONDS);
        }
        assertTrue(violations.isEmpty(), "semaphore '" + name + "' with " + permits + " permits had more in use: "
                + violations.subList(0, Math.min(5, violations.size())));
        assertTrue(completed.get() >= 6, "only " + completed.get() + " holdings completed under contention on '" + name
                + "'");
        assertEquals(0, inUse.get());
    }

    @Test
    default void required_r11_3_aCrashedHoldersPermitsReturnAtTheirLeasesEnd() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        DistributedSemaphore crashing = kit.client().semaphore(name, 2, kit.fixedShortLease());
        // Never closed nor renewed: their holder "crashed". Two leases of one permit each, so that no loss of one
        // makes the client release the other: the store alone must free them.
        PermitLease abandoned = crashing.acquire(1, timing.slack());
        PermitLease alsoAbandoned = crashing.acquire(1, timing.slack());
        DistributedSemaphore survivor = kit.client().semaphore(name, 2, kit.longLease());
        assertTrue(survivor.tryAcquire(1, Duration.ZERO).isEmpty(), "a permit of '" + name
                + "' was granted while a holder had all of them");
        long start = System.nanoTime();
        PermitLease taken = survivor.tryAcquire(2, timing.shortLease().plus(timing.slack())).orElseThrow(
                () -> new AssertionError("the permits of a crashed holder of '" + name + "' did not come back within"
                        + " their lease (" + timing.shortLease() + ") plus " + timing.slack()));
        taken.close();
        assertFalse(abandoned.isHeld() || alsoAbandoned.isHeld(), "the crashed holder's permit lease still says held after "
                + KitContext.millisSince(start) + " ms, past its fixed lease of " + timing.shortLease());
    }

    @Test
    default void required_r11_4_releaseByIdIsOwnerChecked() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        DistributedSemaphore mine = a.semaphore(name, 2, kit.longLease());
        DistributedSemaphore theirs = kit.client().semaphore(name, 2, kit.longLease());
        PermitLease held = mine.acquire(1, timing.slack());
        PermitLease other = theirs.acquire(1, timing.slack());
        assertFalse(mine.release(other.id()), "a client released another client's permit lease by its id");
        assertFalse(mine.release("not-a-permit-id"), "an unknown permit id was released");
        assertTrue(other.isHeld(), "a refused release by id changed another holder's permits");
        assertTrue(mine.release(held.id()), "release by id of a held permit lease answered false");
        assertFalse(held.isHeld(), "a permit lease released by its id still says held");
        assertFalse(mine.release(held.id()), "a permit lease was released twice by its id");
        other.close();
        // A permit lease that ran out: its id frees nothing of the permits' next holders.
        PermitLease expiring = kit.client().semaphore(name, 2, kit.fixedShortLease()).acquire(2, timing.slack());
        DistributedSemaphore expiringSide = a.semaphore(name, 2, kit.longLease());
        kit.within(timing.shortLease().plus(timing.slack()), "the fixed permit lease of '" + name + "' to run out")
                .until(() -> !expiring.isHeld());
        try (PermitLease next = theirs.acquire(2, timing.slack())) {
            assertFalse(expiringSide.release(expiring.id()), "a client released a permit lease it does not hold");
            expiring.close();
            assertTrue(theirs.tryAcquire(1, Duration.ZERO).isEmpty(), "closing a permit lease that had run out freed"
                    + " a permit of its successor on '" + name + "'");
            assertEquals(2, theirs.holders(timing.slack()).size(), "the successor's permits of '" + name
                    + "' are not all held after the late close of an expired lease");
            assertTrue(next.isHeld());
        }
    }

    @Test
    default void required_r11_5_aWaitingAcquireIsServedBeforeNewcomers() throws Exception {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        DistributedSemaphore holder = kit.client().semaphore(name, 2, kit.longLease());
        DistributedSemaphore waiter = kit.client().semaphore(name, 2, kit.longLease());
        DistributedSemaphore newcomer = kit.client().semaphore(name, 2, kit.longLease());
        PermitLease held = holder.acquire(1, timing.slack());
        CompletableFuture<PermitLease> both = waiter.acquireAsync(2, timing.longLease());
        // Once the acquire of 2 waits (with the free permit or ahead of it), every newcomer is refused; before, one
        // may still take the free permit (and gives it back at once).
        kit.within(timing.slack(), "the acquire of 2 permits of '" + name + "' to wait").until(() -> {
            Optional<PermitLease> early = newcomer.tryAcquire(1, Duration.ZERO);
            early.ifPresent(PermitLease::close);
            return early.isEmpty();
        });
        assertTrue(newcomer.tryAcquire(1, timing.shortWait()).isEmpty(), "a newcomer took a permit of '" + name
                + "' while an acquire of 2 waited before it: the larger request can starve");
        assertFalse(both.isDone(), "an acquire of 2 permits of '" + name + "' completed while only 1 was free: "
                + both);
        long released = System.nanoTime();
        held.close();
        try (PermitLease lease = both.get(timing.slack().toMillis(), TimeUnit.MILLISECONDS)) {
            assertEquals(2, lease.permits());
            assertTrue(lease.isHeld(), "the waiter's permits of '" + name + "' are not held");
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("a waiter for 2 permits of '" + name + "' did not get them within "
                    + timing.slack() + " of the last release (" + KitContext.millisSince(released) + " ms)", e);
        }
        newcomer.acquire(2, timing.slack()).close();
    }

    @Test
    default void optional_r11_6_permitTokensStrictlyIncrease() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient a = kit.client();
        KitContext.requireCapability(a, TckRule.R11_6);
        String name = kit.name();
        DistributedSemaphore first = a.semaphore(name, 2, kit.longLease());
        DistributedSemaphore second = kit.client().semaphore(name, 2, kit.longLease());
        long last = Long.MIN_VALUE;
        for (int round = 0; round < 4; round++) {
            try (PermitLease x = first.acquire(1, timing.slack()); PermitLease y = second.acquire(1, timing.slack())) {
                assertTrue(x.fencingToken() > last, "permit token " + x.fencingToken() + " of '" + name
                        + "' is not greater than the one granted before it (" + last + ")");
                assertTrue(y.fencingToken() > x.fencingToken(), "permit token " + y.fencingToken() + " of '" + name
                        + "' is not greater than the one granted before it (" + x.fencingToken() + ")");
                last = y.fencingToken();
            }
        }
        PermitLease expiring = a.semaphore(name, 2, kit.fixedShortLease()).acquire(2, timing.slack());
        kit.within(timing.shortLease().plus(timing.slack()), "the fixed permit lease to run out")
                .until(() -> !expiring.isHeld());
        try (PermitLease after = second.acquire(2, timing.slack())) {
            assertTrue(after.fencingToken() > expiring.fencingToken(), "the permits of '" + name + "' taken after a lease"
                    + " ran out got token " + after.fencingToken() + ", not greater than the expired lease's "
                    + expiring.fencingToken());
        }
    }

    @Test
    default void required_r11_7_badInputToAnyPrimitiveGetsAClearError() {
        KitContext kit = kitContext();
        LockClient client = kit.client();
        String name = kit.name();
        LockOptions options = kit.longLease();
        KitContext.assertClearError(NullPointerException.class, () -> client.semaphore(null, 2), "a null semaphore name");
        KitContext.assertClearError(IllegalArgumentException.class, () -> client.semaphore("", 2), "an empty semaphore name");
        KitContext.assertClearError(IllegalArgumentException.class, () -> client.semaphore(name, 0), "a semaphore of 0 permits");
        KitContext.assertClearError(IllegalArgumentException.class,
                () -> client.semaphore(name, DistributedSemaphore.MAX_PERMITS + 1), "a semaphore of too many permits");
        KitContext.assertClearError(IllegalArgumentException.class, () -> client.semaphore("x".repeat(512), 2),
                "a semaphore name that leaves no room for its permits' suffix");
        DistributedSemaphore semaphore = client.semaphore(name, 2, options);
        KitContext.assertClearError(IllegalArgumentException.class, () -> semaphore.acquire(0, Duration.ZERO),
                "an acquire of 0 permits");
        KitContext.assertClearError(IllegalArgumentException.class, () -> semaphore.acquire(3, Duration.ZERO),
                "an acquire of more permits than the semaphore has");
        KitContext.assertClearError(IllegalArgumentException.class, () -> semaphore.acquire(1, Duration.ofMillis(-1)),
                "a negative wait");
        assertThrows(NullPointerException.class, () -> semaphore.acquire(1, null), "a null wait");
        assertThrows(NullPointerException.class, () -> semaphore.release(null), "a null permit id");
        KitContext.assertClearError(IllegalArgumentException.class, () -> client.readWriteLock(name, options, 0),
                "a read-write lock admitting no reader");
        KitContext.assertClearError(IllegalArgumentException.class, () -> client.readWriteLock(" "),
                "a blank read-write lock name");
        assertThrows(NullPointerException.class, () -> client.election(null), "a null election name");
        KitContext.assertClearError(IllegalArgumentException.class,
                () -> client.election(name).observe(Duration.ofMillis(1), leader -> { }), "an observation every 1 ms");
        KitContext.assertClearError(IllegalStateException.class,
                () -> client.election(name).awaitLeadership(Duration.ZERO), "awaiting leadership without joining");
        // Nothing above reached the store: every permit is free.
        semaphore.acquire(2, kit.timing().slack()).close();
    }
}
