package io.locksmith.tck;

import io.locksmith.Capability;
import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.LockTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The rules of leases that move between threads (R4.4-R4.6) and of the asynchronous acquire (R10): a lease is
 * re-entered only by the thread inside a synchronous critical section, never by a thread it left, and an asynchronous
 * wait is exclusive, bounded and cancellable and leaves nothing behind. Part of {@link LockTck} (a nested kit); these
 * rules test the shared client over the provider, so a provider passes them when its acquire, release and
 * notification keep the rules of R1, R2 and R7.
 */
@ExtendWith(RuleFailureMessages.class)
@Timeout(120)
public abstract class ThreadsAndAsyncTck {

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();

    /** A NEW client on the store under test; the kit closes it. */
    protected abstract LockClient newClient();

    /** Timing for this store. */
    protected abstract TckTiming timing();

    @AfterEach
    final void closeClients() {
        clients.forEach(LockClient::close);
        clients.clear();
    }

    private LockClient client() {
        LockClient client = newClient();
        clients.add(client);
        fencing = client.capabilities().contains(Capability.FENCING);
        return client;
    }

    private static String name() {
        return "tck-threads-" + UUID.randomUUID();
    }

    /** Whether the store fences: the token checks run only then. */
    private boolean fencing;

    private boolean fencing() {
        return fencing;
    }

    private Duration wait(int slacks) {
        return timing().slack().multipliedBy(slacks);
    }

    // ================================================================ R4 Re-entry and hand-off

    @Test
    void required_r4_4_aLeaseHandedToAnotherThreadExcludesTheThreadItLeft() throws Exception {
        LockClient a = client();
        DistributedLock lock = a.lock(name());
        Lease first = lock.acquire(wait(2));
        CountDownLatch closeNow = new CountDownLatch(1);
        Lease handed = first.handOff();
        Thread worker = new Thread(() -> {
            try {
                closeNow.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            handed.close();
        }, "tck-new-holder");
        worker.start();
        try {
            Optional<Lease> reentered = lock.tryAcquire(timing().shortWait());
            reentered.ifPresent(Lease::close);
            assertFalse(reentered.isPresent(), "the thread a lease was handed away from acquired the lock again"
                    + " (token " + reentered.map(Lease::fencingToken).orElse(-1L) + ", the new holder's is "
                    + first.fencingToken() + ") while the new holder's critical section was open");
            assertFalse(lock.isHeldByCurrentThread(), "isHeldByCurrentThread() still true after the hand-off");
            CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> lock.acquire(wait(4)));
            closeNow.countDown();
            try (Lease second = next.get(wait(5).toMillis(), TimeUnit.MILLISECONDS)) {
                assertEquals(1, second.holdCount(), "a new holding counts one lease");
                if (fencing()) {
                    assertTrue(second.fencingToken() > first.fencingToken(), "the holding after the handed-off one"
                            + " must get a greater token: " + second.fencingToken() + " after " + first.fencingToken());
                }
            }
        } finally {
            closeNow.countDown();
            worker.join(TimeUnit.SECONDS.toMillis(10));
        }
    }

    @Test
    void required_r4_5_aNonReentrantLockNeverReenters() {
        LockClient a = client();
        DistributedLock lock = a.lock(name(), LockOptions.builder().leaseTime(timing().longLease())
                .reentrant(false).build());
        try (Lease lease = lock.acquire(wait(2))) {
            Optional<Lease> nested = lock.tryAcquire(timing().shortWait());
            nested.ifPresent(Lease::close);
            assertFalse(nested.isPresent(), "a lock whose options say not reentrant was re-entered");
            assertTrue(lease.isHeld(), "the outer lease was lost by a refused nested acquire");
            assertThrows(LockTimeoutException.class, () -> lock.acquire(timing().shortWait()));
        }
    }

    @Test
    void required_r4_6_anAsyncLeaseIsNeverReenteredByAThread() throws Exception {
        LockClient a = client();
        DistributedLock lock = a.lock(name());
        Lease lease = lock.acquireAsync(wait(2)).get(wait(3).toMillis(), TimeUnit.MILLISECONDS);
        try {
            Optional<Lease> byThread = lock.tryAcquire(timing().shortWait());
            byThread.ifPresent(Lease::close);
            assertFalse(byThread.isPresent(), "the thread that completed an async acquire re-entered its lease");
            Optional<Lease> byAsync = lock.tryAcquireAsync(timing().shortWait())
                    .get(wait(3).toMillis(), TimeUnit.MILLISECONDS);
            byAsync.ifPresent(Lease::close);
            assertFalse(byAsync.isPresent(), "an async acquire re-entered a held async lease");
        } finally {
            lease.closeAsync().get(wait(3).toMillis(), TimeUnit.MILLISECONDS);
        }
        assertFalse(lease.isHeld());
    }

    // ================================================================ R10 Asynchronous acquire

    @Test
    void required_r10_1_asyncAcquiresAreExclusive() throws Exception {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        AtomicInteger inside = new AtomicInteger();
        AtomicLong lastToken = new AtomicLong(Long.MIN_VALUE);
        List<String> violations = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            LockClient client = i % 2 == 0 ? a : b;
            all.add(client.lock(name).acquireAsync(wait(15)).thenCompose(lease -> {
                if (inside.incrementAndGet() != 1) {
                    violations.add("two async holders at once (token " + lease.fencingToken() + ")");
                }
                long before = lastToken.getAndSet(lease.fencingToken());
                if (fencing() && lease.fencingToken() <= before) {
                    violations.add("token " + lease.fencingToken() + " after " + before);
                }
                inside.decrementAndGet();
                return lease.closeAsync();
            }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(wait(20).toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(List.of(), violations);
    }

    @Test
    void required_r10_2_anAsyncBoundedWaitTimesOutAndLeavesNothingBehind() throws Exception {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        Lease held = a.lock(name).acquire(wait(2));
        long started = System.nanoTime();
        ExecutionException failed = assertThrows(ExecutionException.class, () -> b.lock(name)
                .acquireAsync(timing().shortWait()).get(wait(3).toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(LockTimeoutException.class, failed.getCause(), "an async wait on a held lock must end with"
                + " LockTimeoutException");
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(tookMillis < timing().shortWait().plus(timing().slack()).toMillis(),
                "the async wait of " + timing().shortWait() + " ended after " + tookMillis + " ms");
        assertEquals(Optional.empty(), b.lock(name).tryAcquireAsync(timing().shortWait())
                .get(wait(3).toMillis(), TimeUnit.MILLISECONDS));
        held.close();
        // Nothing of b's waits is left in the store: a third client gets the free lock at once.
        LockClient c = client();
        Optional<Lease> next = c.lock(name).tryAcquire();
        assertTrue(next.isPresent(), "the lock was not free after its holder released it: an async wait that timed"
                + " out left something behind");
        next.get().close();
    }

    @Test
    void required_r10_3_cancellingAnAsyncWaitLeavesNothingBehind() throws Exception {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        Lease held = a.lock(name).acquire(wait(2));
        List<CompletableFuture<Lease>> waits = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waits.add(b.lock(name).acquireAsync(wait(10)));
        }
        // Let the waits reach the store (a queue place, a watch) before they are cancelled.
        assertThrows(TimeoutException.class, () -> waits.get(0).get(timing().shortWait().toMillis(),
                TimeUnit.MILLISECONDS));
        waits.forEach(wait -> assertTrue(wait.cancel(true), "a pending wait could not be cancelled"));
        held.close();
        LockClient c = client();
        long deadline = System.nanoTime() + timing().slack().toNanos();
        Optional<Lease> next = Optional.empty();
        while (next.isEmpty() && System.nanoTime() < deadline) {
            next = c.lock(name).tryAcquire(timing().shortWait());
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
    void required_r10_4_anAsyncWaiterGetsTheLockWhenItIsReleased() throws Exception {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        Lease held = a.lock(name).acquire(wait(2));
        CompletableFuture<Lease> waiting = b.lock(name).acquireAsync(wait(6));
        assertFalse(waiting.isDone(), "an async acquire of a held lock completed at once: " + waiting);
        held.closeAsync().get(wait(2).toMillis(), TimeUnit.MILLISECONDS);
        try (Lease lease = waiting.get(wait(6).toMillis(), TimeUnit.MILLISECONDS)) {
            assertTrue(lease.isHeld());
            if (fencing()) {
                assertTrue(lease.fencingToken() > held.fencingToken());
            }
        } catch (TimeoutException e) {
            fail("the async waiter did not get the released lock within its bound of " + wait(6));
        }
    }
}
