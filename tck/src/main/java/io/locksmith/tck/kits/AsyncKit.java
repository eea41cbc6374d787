package io.locksmith.tck.kits;

import io.locksmith.Capability;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockTimeoutException;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The rules of the asynchronous acquire (docs/SPEC.md R10): {@code acquireAsync} and {@code tryAcquireAsync} are
 * exclusive, bounded, cancellable and woken on release, and a wait that ends without the lock leaves nothing behind.
 * They test the shared client over the provider: a provider passes them when its acquire, release, cancel and
 * notification keep R1, R2 and R7.
 */
public interface AsyncKit extends RuleKit {

    @Test
    default void required_r10_1_asyncAcquiresAreExclusive() throws Exception {
        KitContext kit = kitContext();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        AtomicInteger inside = new AtomicInteger();
        AtomicLong lastToken = new AtomicLong(Long.MIN_VALUE);
        List<String> violations = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            LockClient client = i % 2 == 0 ? a : b;
            all.add(client.lock(name).acquireAsync(kit.timing().slack().multipliedBy(15)).thenCompose(lease -> {
                if (inside.incrementAndGet() != 1) {
                    violations.add("two async holders at once (token " + lease.fencingToken() + ")");
                }
                long before = lastToken.getAndSet(lease.fencingToken());
                if (KitContext.hasCapability(a, Capability.FENCING) && lease.fencingToken() <= before) {
                    violations.add("token " + lease.fencingToken() + " after " + before);
                }
                // The critical section lasts a moment, as work does: a second holder that comes while it is open is
                // seen, whichever order the completions run in.
                return CompletableFuture.runAsync(() -> inside.decrementAndGet(), CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS))
                        .thenCompose(done -> lease.closeAsync());
            }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(kit.timing().slack().multipliedBy(20).toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(List.of(), violations);
    }

    @Test
    default void required_r10_2_anAsyncBoundedWaitTimesOutAndLeavesNothingBehind() throws Exception {
        KitContext kit = kitContext();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        Lease held = a.lock(name).acquire(kit.timing().slack().multipliedBy(2));
        long started = System.nanoTime();
        ExecutionException failed = assertThrows(ExecutionException.class, () -> b.lock(name)
                .acquireAsync(kit.timing().shortWait()).get(kit.timing().slack().multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(LockTimeoutException.class, failed.getCause(), "an async wait on a held lock must end with"
                + " LockTimeoutException");
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(tookMillis < kit.timing().shortWait().plus(kit.timing().slack()).toMillis(),
                "the async wait of " + kit.timing().shortWait() + " ended after " + tookMillis + " ms");
        assertEquals(Optional.empty(), b.lock(name).tryAcquireAsync(kit.timing().shortWait())
                .get(kit.timing().slack().multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS));
        held.close();
        // Nothing of b's waits is left in the store: a third client gets the free lock at once.
        LockClient c = kit.client();
        Optional<Lease> next = c.lock(name).tryAcquire();
        assertTrue(next.isPresent(), "the lock was not free after its holder released it: an async wait that timed"
                + " out left something behind");
        next.get().close();
    }

    @Test
    default void required_r10_3_cancellingAnAsyncWaitLeavesNothingBehind() throws Exception {
        KitContext kit = kitContext();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        Lease held = a.lock(name).acquire(kit.timing().slack().multipliedBy(2));
        List<CompletableFuture<Lease>> waits = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waits.add(b.lock(name).acquireAsync(kit.timing().slack().multipliedBy(10)));
        }
        // Let the waits reach the store (a queue place, a watch) before they are cancelled.
        assertThrows(TimeoutException.class, () -> waits.get(0).get(kit.timing().shortWait().toMillis(),
                TimeUnit.MILLISECONDS));
        waits.forEach(wait -> assertTrue(wait.cancel(true), "a pending wait could not be cancelled"));
        held.close();
        LockClient c = kit.client();
        // For a moment nobody else competes, so that a cancelled wait that went on takes the released lock now, as it
        // would for nobody (a competitor that came at once could win the race and hide it). A lease granted at the
        // moment of a cancel and released at once is allowed.
        AtomicReference<Optional<LockInfo>> taken = new AtomicReference<>(Optional.empty());
        try {
            Awaitility.await().during(kit.timing().shortWait()).atMost(kit.timing().shortWait().plus(kit.timing().slack()))
                    .pollInterval(Duration.ofMillis(10)).until(() -> {
                        taken.set(c.inspect(name));
                        return taken.get().isEmpty();
                    });
        } catch (ConditionTimeoutException e) {
            fail("the released lock was taken by " + taken.get().map(LockInfo::holder).orElse(null) + " while only"
                    + " cancelled async waits were waiting for it (the cancelled waits' client holds " + b.heldCount()
                    + " locks): a cancelled wait went on");
        }
        long deadline = System.nanoTime() + kit.timing().slack().toNanos();
        Optional<Lease> next = Optional.empty();
        while (next.isEmpty() && System.nanoTime() < deadline) {
            next = c.lock(name).tryAcquire(kit.timing().shortWait());
        }
        assertTrue(next.isPresent(), "a released lock stayed taken after its async waiters were cancelled: a cancelled"
                + " wait took it or left a queue place ahead of every later waiter");
        try (Lease lease = next.get()) {
            Optional<LockInfo> holder = c.inspect(name);
            assertTrue(holder.isPresent() && holder.get().holder().clientId().equals(c.clientId()),
                    "inspect shows " + holder + " instead of the new holder");
            for (CompletableFuture<Lease> wait : waits) {
                assertThrows(CancellationException.class, wait::join);
            }
            assertEquals(0, b.heldCount(), "a cancelled async wait holds a lease");
            assertTrue(lease.isHeld());
        }
    }

    @Test
    default void required_r10_4_anAsyncWaiterGetsTheLockWhenItIsReleased() throws Exception {
        KitContext kit = kitContext();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        Lease held = a.lock(name).acquire(kit.timing().slack().multipliedBy(2));
        CompletableFuture<Lease> waiting = b.lock(name).acquireAsync(kit.timing().slack().multipliedBy(6));
        // Let the wait find the lock taken (an attempt, a subscription) before the release, or a waiter that only
        // tries at its start and at its end would get the lock by its first try.
        assertThrows(TimeoutException.class, () -> waiting.get(kit.timing().shortWait().toMillis(), TimeUnit.MILLISECONDS),
                "an async acquire of a held lock completed while the lock was held: " + waiting);
        held.closeAsync().get(kit.timing().slack().multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
        // Woken by the release (its notification, or the client's poll), as a waiting thread is (R7.3): within the
        // slack, far inside its bound, so that a waiter that looks again only when its bound ends does not pass.
        try (Lease lease = waiting.get(kit.timing().slack().toMillis(), TimeUnit.MILLISECONDS)) {
            assertTrue(lease.isHeld());
            if (KitContext.hasCapability(a, Capability.FENCING)) {
                assertTrue(lease.fencingToken() > held.fencingToken());
            }
        } catch (TimeoutException e) {
            fail("the async waiter did not get the released lock within " + kit.timing().slack() + " of the release (its"
                    + " bound is " + kit.timing().slack().multipliedBy(6) + "): the release did not wake it");
        }
    }
}
