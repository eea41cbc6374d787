package io.locksmith.tck;

import io.locksmith.DistributedLock;
import io.locksmith.HolderIdentity;
import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockLostException;
import io.locksmith.LockOptions;
import io.locksmith.LockTimeoutException;
import io.locksmith.LossReason;
import io.locksmith.Capability;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderClientBuilder;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The Locksmith compatibility kit: every rule of {@code docs/SPEC.md} as a JUnit 5 test. A backend author
 * extends this class once:
 * <pre>{@code
 * class RedisLockTckTest extends LockTck {
 *     static ServerProcess redis = ...;
 *
 *     protected LockClient newClient() {
 *         return LockClient.open("redis://127.0.0.1:" + redis.port());
 *     }
 *
 *     protected void expireBehindClientsBack(String lockName) {
 *         jedis.pexpire(lockName, 1);
 *     }
 * }
 * }</pre>
 *
 * <p>Test names carry the rule id ({@code required_r2_1_...}); {@code optional_...} rules run only for the
 * {@link Capability capabilities} the store declares and are skipped with the reason otherwise. Every
 * failure message starts with "Rule Rx.y (...) violated" and ends with where to look. Each rule uses fresh
 * lock names and closes every client it asked for. Rules that need the store to drop a lock behind its
 * holder's back are skipped, naming the hook, unless {@link #expireBehindClientsBack(String)} is overridden;
 * rules that open their own clients on the store (through the kit's {@link FaultInjector} at the SPI, or with a
 * trace id source) are skipped unless {@link #storeUri()} is.
 *
 * <p>Each rule has a time-out, so a broken store cannot hang the kit.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@ExtendWith(RuleFailureMessages.class)
public abstract class LockTck {

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final List<Thread> helperThreads = new CopyOnWriteArrayList<>();
    private ExecutorService helpers;
    private TckTiming timing;

    /** A NEW client on the store under test (a new client id each call). The kit closes every client it gets. */
    protected abstract LockClient newClient();

    /**
     * Makes the store drop the lock right now, as if its TTL ran out, behind its holder's back (Redis:
     * {@code PEXPIRE key 1}; mem: {@code MemStore.expire}). The default throws
     * {@link UnsupportedOperationException}, and the rules that need it are skipped with a reason naming
     * this hook.
     */
    protected void expireBehindClientsBack(String lockName) {
        throw new UnsupportedOperationException("expireBehindClientsBack(String) is not implemented by "
                + getClass().getName());
    }

    /** Timing for this store; default {@link TckTiming#defaults()}. */
    protected TckTiming timing() {
        return TckTiming.defaults();
    }

    @BeforeEach
    final void startRule() {
        timing = Objects.requireNonNull(timing(), "timing() returned null");
        helpers = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "tck-helper");
            thread.setDaemon(true);
            return thread;
        });
    }

    @AfterEach
    final void closeEverything() {
        helpers.shutdownNow();
        helperThreads.forEach(Thread::interrupt);
        RuntimeException failure = null;
        for (LockClient client : clients) {
            try {
                client.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        clients.clear();
        if (failure != null) {
            throw failure;
        }
    }

    /** R4.4-R4.6 and R10: leases that move between threads, and the asynchronous acquire, on this store. */
    @Nested
    class ThreadsAndAsync extends ThreadsAndAsyncTck {
        @Override
        protected LockClient newClient() {
            return LockTck.this.newClient();
        }

        @Override
        protected TckTiming timing() {
            return LockTck.this.timing();
        }
    }

    /** R7.11: a hot lock with a thousand local waiters, on this store. */
    @Nested
    class HotLock extends HotLockTck {
        @Override
        protected LockClient newClient() {
            return LockTck.this.newClient();
        }

        @Override
        protected TckTiming timing() {
            return LockTck.this.timing();
        }
    }

    // ================================================================ R1 Exclusion

    @Test
    void required_r1_1_onlyOneHolderAtATime() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        try (Lease held = a.lock(name, longLease()).acquire(timing.slack())) {
            assertTrue(b.lock(name, longLease()).tryAcquire().isEmpty(),
                    "a second client got lock '" + name + "' while the first held it (token " + held.fencingToken() + ")");
            assertTrue(b.lock(name, longLease()).tryAcquire(timing.shortWait()).isEmpty(),
                    "a second client got lock '" + name + "' after a bounded wait while the first still held it");
            assertTrue(held.isHeld(), "the first holder lost the lock while another client tried to take it");
        }
        try (Lease next = b.lock(name, longLease()).tryAcquire().orElseThrow(
                () -> new AssertionError("lock '" + name + "' was released but another client could not take it"))) {
            assertTrue(next.isHeld());
        }
    }

    @Test
    void required_r1_2_namesAreIndependent() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        try (Lease held = a.lock(name, longLease()).acquire(timing.slack());
             Lease other = b.lock(name + "-other", longLease()).tryAcquire().orElseThrow(
                     () -> new AssertionError("holding '" + name + "' blocked the different name '" + name + "-other'"));
             Lease prefix = b.lock(name.substring(0, name.length() - 1), longLease()).tryAcquire().orElseThrow(
                     () -> new AssertionError("holding '" + name + "' blocked its prefix"));
             Lease second = a.lock(name + ":2", longLease()).tryAcquire().orElseThrow(
                     () -> new AssertionError("a client holding '" + name + "' could not take a second name"))) {
            assertEquals(2, a.heldCount(), "client A should hold two store locks");
            assertTrue(held.isHeld() && other.isHeld() && prefix.isHeld() && second.isHeld());
        }
    }

    @Test
    void required_r1_3_acquireIsAtomicUnderARace() throws Exception {
        int racers = 4;
        List<LockClient> racing = new ArrayList<>();
        for (int i = 0; i < racers; i++) {
            racing.add(client());
        }
        for (int round = 1; round <= 10; round++) {
            String name = name();
            CyclicBarrier start = new CyclicBarrier(racers);
            List<Future<Optional<Lease>>> attempts = new ArrayList<>();
            for (LockClient racer : racing) {
                DistributedLock lock = racer.lock(name, longLease());
                attempts.add(helpers.submit(() -> {
                    start.await(timing.slack().toMillis(), TimeUnit.MILLISECONDS);
                    return lock.tryAcquire();
                }));
            }
            List<Lease> winners = new ArrayList<>();
            for (Future<Optional<Lease>> attempt : attempts) {
                attempt.get(timing.slack().multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS).ifPresent(winners::add);
            }
            winners.forEach(Lease::close);
            assertEquals(1, winners.size(), "round " + round + ": " + racers + " clients raced for the free lock '"
                    + name + "' and " + winners.size() + " of them got it (tokens "
                    + winners.stream().map(Lease::fencingToken).toList() + ")");
        }
    }

    @Test
    void required_r1_4_contentionWorkloadShowsNoOverlap() {
        WorkloadReport report = runWorkload();
        assertCompleteAndExclusive(report);
    }

    /** Every operation completed, none timed out or failed, no worker hung, no two holders inside at once. */
    private static void assertCompleteAndExclusive(WorkloadReport report) {
        assertEquals(0, report.errors(), () -> "operations failed: " + report);
        assertEquals(0, report.stuckThreads(), () -> "workers hung: " + report);
        assertEquals(0, report.acquireTimeouts(), () -> "acquires timed out under plain contention: " + report);
        assertEquals(WORKLOAD_OPERATIONS, report.operations(), () -> "not every operation completed: " + report);
        assertEquals(0, report.overlaps(), () -> "two holders were inside at once: " + report);
    }

    // ================================================================ R2 Ownership

    @Test
    void required_r2_1_releaseByNonOwnerMustNotDeleteTheNewHoldersLock() {
        String name = name();
        // Where the kit can open A's client itself, A's stale grant is also released at the SPI, synchronously: the
        // client may release a lease it knows ran out in the background, after the check below.
        SpiClient spiA = supportsStoreUri() ? spiClient(TckRule.R2_1, null) : null;
        LockClient a = spiA != null ? spiA.client() : client();
        LockClient b = client();
        LockClient c = client();
        Lease stale = a.lock(name, fixedShortLease()).acquire(timing.slack());
        Lease current = b.lock(name, longLease()).tryAcquire(timing.shortLease().plus(timing.slack())).orElseThrow(
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
            within(timing.slack().multipliedBy(2), "lock '" + name + "' to be watched after holder A's late release")
                    .until(() -> System.nanoTime() - watchUntil >= 0 || !java.util.Objects.equals(current.fencingToken(),
                            c.inspect(name).map(LockInfo::fencingToken).orElse(null)));
        }
        assertTrue(c.lock(name, longLease()).tryAcquire().isEmpty(), "the late release of holder A (token "
                + stale.fencingToken() + "), whose lease had run out, freed lock '" + name
                + "' that now belongs to holder B (token " + current.fencingToken() + "): a third client took it");
        LockInfo info = c.inspect(name).orElseThrow(() -> new AssertionError("lock '" + name
                + "' is free after holder A's late release, although holder B holds it"));
        assertEquals(b.clientId(), info.holder().clientId(), "lock '" + name + "' should still be B's after A's late release");
        assertTrue(current.isHeld(), "holder B's lease was lost after A's late release");
        current.close();
    }

    @Test
    void required_r2_2_renewalByNonOwnerMustNotExtendTheNewHoldersLock() {
        requireExpiryHook(TckRule.R2_2);
        LockClient a = client();
        LockClient b = client();
        // Three names at once: a renewal falling between the expiry and B's acquire would hide the fault once.
        List<String> names = List.of(name(), name(), name());
        List<Lease> stale = new ArrayList<>();
        List<AtomicReference<LeaseLostEvent>> lost = new ArrayList<>();
        for (String name : names) {
            Lease lease = a.lock(name, renewingShortLease()).acquire(timing.slack());
            AtomicReference<LeaseLostEvent> event = new AtomicReference<>();
            lease.onLost(event::set);
            stale.add(lease);
            lost.add(event);
        }
        List<Lease> current = new ArrayList<>();
        for (String name : names) {
            expireBehindClientsBack(name);
            current.add(b.lock(name, longLease()).tryAcquire(timing.slack()).orElseThrow(() -> new AssertionError(
                    "lock '" + name + "' was expired through the hook but another client could not take it")));
        }
        for (int i = 0; i < names.size(); i++) {
            AtomicReference<LeaseLostEvent> event = lost.get(i);
            within(timing.shortLease().plus(timing.slack()), "holder A to learn its renewal failed after holder B took '"
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
    void required_r2_3_releaseFreesTheLockAtOnce() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        Lease lease = a.lock(name, longLease()).acquire(timing.slack());
        lease.close();
        assertFalse(lease.isHeld(), "a closed lease still reports isHeld()");
        assertEquals(0, a.heldCount(), "the client still counts the released lock as held");
        try (Lease next = b.lock(name, longLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                "lock '" + name + "' was released but another client could not take it right away"))) {
            assertTrue(next.isHeld());
        }
        lease.close(); // closing twice is a no-op
    }

    @Test
    void required_r2_4_holderIdentityIsUniqueAndVisible() throws Exception {
        LockClient a = client();
        LockClient b = client();
        LockClient c = client();
        assertEquals(3, Set.of(a.clientId(), b.clientId(), c.clientId()).size(),
                "three clients share an id: " + List.of(a.clientId(), b.clientId(), c.clientId()));
        String name = name();
        try (Lease first = a.lock(name, longLease()).acquire(timing.slack())) {
            assertEquals(a.clientId(), first.holder().clientId(), "the lease does not name its client");
            assertEquals(a.clientId(), b.inspect(name).map(info -> info.holder().clientId()).orElse(null),
                    "inspect does not name the holding client");
            String other = name();
            try (Lease elsewhere = inOtherThread(() -> a.lock(other, longLease()).acquire(timing.slack()))) {
                assertNotEquals(first.holder().threadId(), elsewhere.holder().threadId(),
                        "two holdings from different threads carry the same thread id");
            }
        }
        try (Lease second = b.lock(name, longLease()).acquire(timing.slack())) {
            assertEquals(second.holder().clientId(), c.inspect(name).map(info -> info.holder().clientId()).orElse(null),
                    "after a handover, inspect still names the previous holder");
        }
    }

    // ================================================================ R3 Expiry

    @Test
    void required_r3_1_crashedHoldersLockFreesItselfAfterItsTtl() {
        String name = name();
        LockClient crashed = client();
        LockClient b = client();
        Lease abandoned = crashed.lock(name, fixedShortLease()).acquire(timing.slack());
        // The holder never releases nor renews: the store alone must free the lock at its TTL.
        Duration bound = timing.shortLease().plus(timing.slack());
        long start = System.nanoTime();
        Optional<Lease> next = b.lock(name, longLease()).tryAcquire(bound);
        assertTrue(next.isPresent(), "lock '" + name + "' acquired with a TTL of " + timing.shortLease()
                + " by a holder that then stopped was still taken after " + millisSince(start) + " ms");
        next.get().close();
        abandoned.close();
    }

    @Test
    void required_r3_2_theStoreKeepsALockForItsWholeTtl() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        Duration lease = timing.slack().multipliedBy(2);
        try (Lease held = a.lock(name, LockOptions.builder().leaseTime(lease).fixedLease().build()).acquire(timing.slack())) {
            waitFor(timing.shortLease());
            assertTrue(b.lock(name, longLease()).tryAcquire().isEmpty(), "lock '" + name + "' with a TTL of " + lease
                    + " was free for another client after " + timing.shortLease());
            assertTrue(held.isHeld(), "the holder's lease of " + lease + " was lost after " + timing.shortLease());
        }
    }

    // ================================================================ R4 Re-entry

    @Test
    void required_r4_1_reentryIsCountedLocallyAndSharesTheToken() {
        String name = name();
        LockClient a = client();
        DistributedLock lock = a.lock(name, longLease());
        try (Lease outer = lock.acquire(timing.slack())) {
            try (Lease inner = lock.acquire(timing.slack());
                 Lease again = a.lock(name, longLease()).tryAcquire().orElseThrow(
                         () -> new AssertionError("re-entry through another DistributedLock of the same name failed"))) {
                assertEquals(outer.fencingToken(), inner.fencingToken(), "a re-entrant lease got another token");
                assertEquals(outer.fencingToken(), again.fencingToken(), "a re-entrant lease got another token");
                assertEquals(3, outer.holdCount(), "three leases share the store lock");
                assertEquals(1, a.heldCount(), "re-entry took a second store lock");
                assertTrue(lock.isHeldByCurrentThread());
                assertEquals(outer.fencingToken(), a.inspect(name).map(LockInfo::fencingToken).orElse(null),
                        "the store shows another token than the re-entrant leases");
            }
            assertEquals(1, outer.holdCount());
            assertTrue(outer.isHeld(), "closing the inner leases lost the outer one");
        }
        assertFalse(lock.isHeldByCurrentThread());
    }

    @Test
    void required_r4_2_otherThreadsOfTheSameClientAreExcluded() throws Exception {
        String name = name();
        LockClient a = client();
        try (Lease held = a.lock(name, longLease()).acquire(timing.slack())) {
            Optional<Lease> fromOtherThread = inOtherThread(() -> a.lock(name, longLease()).tryAcquire(timing.shortWait()));
            fromOtherThread.ifPresent(Lease::close);
            assertTrue(fromOtherThread.isEmpty(), "another thread of the same client got lock '" + name
                    + "' while it was held: re-entry must be per thread");
            assertTrue(held.isHeld());
        }
    }

    @Test
    void required_r4_3_theStoreLockIsReleasedWithTheLastLease() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        Lease outer = a.lock(name, longLease()).acquire(timing.slack());
        Lease inner = a.lock(name, longLease()).acquire(timing.slack());
        inner.close();
        assertTrue(b.lock(name, longLease()).tryAcquire().isEmpty(),
                "closing the inner re-entrant lease released lock '" + name + "' in the store");
        assertTrue(outer.isHeld());
        outer.close();
        b.lock(name, longLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                "lock '" + name + "' stayed taken after its last re-entrant lease was closed")).close();
    }

    // ================================================================ R5 Fencing

    @Test
    void optional_r5_1_fencingTokensStrictlyIncreasePerName() {
        List<LockClient> holders = List.of(client(), client(), client());
        requireCapability(holders.get(0), TckRule.R5_1);
        String name = name();
        long previous = Long.MIN_VALUE;
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            try (Lease lease = holders.get(i % 3).lock(name, longLease()).acquire(timing.slack())) {
                tokens.add(lease.fencingToken());
                assertTrue(lease.fencingToken() > previous, "holding " + (i + 1) + " of lock '" + name
                        + "' got a token not greater than the previous holder's: " + tokens);
                previous = lease.fencingToken();
            }
            // Another name's traffic must not matter.
            holders.get((i + 1) % 3).lock(name + "-other", longLease()).acquire(timing.slack()).close();
        }
    }

    @Test
    void optional_r5_2_fencingTokensIncreaseAcrossAnExpiry() {
        LockClient a = client();
        LockClient b = client();
        LockClient c = client();
        requireCapability(a, TckRule.R5_2);
        String name = name();
        Lease expired = a.lock(name, fixedShortLease()).acquire(timing.slack());
        Lease next = b.lock(name, longLease()).tryAcquire(timing.shortLease().plus(timing.slack())).orElseThrow(
                () -> new AssertionError("lock '" + name + "' did not expire (see R3.1)"));
        assertTrue(next.fencingToken() > expired.fencingToken(), "after an expiry the next holder's token "
                + next.fencingToken() + " is not greater than the expired holder's " + expired.fencingToken());
        if (supportsExpiryHook()) {
            expireBehindClientsBack(name);
            Lease third = c.lock(name, longLease()).tryAcquire(timing.slack()).orElseThrow(
                    () -> new AssertionError("lock '" + name + "' was expired through the hook but stayed taken"));
            assertTrue(third.fencingToken() > next.fencingToken(), "after an expiry behind the holder's back the token "
                    + third.fencingToken() + " is not greater than the previous " + next.fencingToken());
            third.close();
        }
        next.close();
        expired.close();
    }

    @Test
    void optional_r5_3_aFencedResourceAcceptsNoStaleWriteUnderContention() {
        requireCapability(client(), TckRule.R5_3);
        WorkloadReport report = runWorkload();
        assertCompleteAndExclusive(report);
        assertEquals(0, report.staleWritesAccepted(), () -> "stale writes were accepted: " + report);
        assertEquals(0, report.tokenMonotonicityViolations(), () -> "tokens went backwards: " + report);
    }

    // ================================================================ R6 Renewal and loss

    @Test
    void required_r6_1_renewalKeepsAHeldLockAlivePastItsTtl() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        try (Lease lease = a.lock(name, renewingShortLease()).acquire(timing.slack())) {
            waitFor(timing.shortLease().multipliedBy(3));
            assertTrue(lease.isHeld(), "a renewing lease with a TTL of " + timing.shortLease()
                    + " was lost after three TTLs");
            lease.ensureHeld();
            assertTrue(b.lock(name, longLease()).tryAcquire().isEmpty(), "another client took lock '" + name
                    + "' from a renewing holder after three TTLs");
            assertEquals(lease.fencingToken(), b.inspect(name).map(LockInfo::fencingToken).orElse(null),
                    "renewal changed the holder or token in the store");
        }
    }

    @Test
    void required_r6_2_renewalStopsAtRelease() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        LockClient c = client();
        Lease renewing = a.lock(name, renewingShortLease()).acquire(timing.slack());
        waitFor(timing.shortLease());
        assertTrue(renewing.isHeld(), "a renewing lease on '" + name + "' was lost within one lease (see R6.1)");
        renewing.close();
        Lease fixed = b.lock(name, fixedShortLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                "lock '" + name + "' released by a renewing holder was not free at once"));
        Optional<Lease> after = c.lock(name, longLease()).tryAcquire(timing.shortLease().plus(timing.slack()));
        assertTrue(after.isPresent(), "the next holder's fixed lease of " + timing.shortLease()
                + " never ran out: the released holder's renewal kept extending lock '" + name + "'");
        after.get().close();
        fixed.close();
    }

    @Test
    void required_r6_3_renewalStopsAtTheMaximumHold() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        Duration maxHold = timing.shortLease().multipliedBy(2);
        LockOptions options = LockOptions.builder().leaseTime(timing.shortLease()).maxHold(maxHold).build();
        Lease lease = a.lock(name, options).acquire(timing.slack());
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        Duration bound = maxHold.plus(timing.shortLease()).plus(timing.slack());
        Optional<Lease> next = b.lock(name, longLease()).tryAcquire(bound);
        assertTrue(next.isPresent(), "lock '" + name + "' with a maximum hold of " + maxHold + " and a TTL of "
                + timing.shortLease() + " was still taken after " + bound);
        within(timing.slack(), "the holder to be told its lease passed the maximum hold").until(() -> lost.get() != null);
        assertEquals(LossReason.MAX_HOLD_EXCEEDED, lost.get().reason(), "wrong loss reason: " + lost.get());
        assertFalse(lease.isHeld());
        next.get().close();
        lease.close();
    }

    @Test
    void required_r6_4_lossIsSignalledWhenTheStoreSideLockIsGone() {
        requireExpiryHook(TckRule.R6_4);
        String name = name();
        LockClient a = client();
        Lease lease = a.lock(name, renewingShortLease()).acquire(timing.slack());
        AtomicInteger callbacks = new AtomicInteger();
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(event -> {
            lost.set(event);
            callbacks.incrementAndGet();
        });
        expireBehindClientsBack(name);
        within(timing.shortLease().plus(timing.slack()), "the holder to be told that the store lost lock '" + name
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
    void required_r6_5_aFixedLeaseIsReportedLostWhenItRunsOut() {
        String name = name();
        LockClient a = client();
        Lease lease = a.lock(name, fixedShortLease()).acquire(timing.slack());
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        within(timing.shortLease().plus(timing.slack()), "the fixed lease of " + timing.shortLease()
                + " to be reported lost").until(() -> lost.get() != null);
        assertEquals(LossReason.EXPIRED, lost.get().reason(), "wrong loss reason: " + lost.get());
        assertFalse(lease.isHeld());
        assertThrows(LockLostException.class, lease::ensureHeld);
        lease.close();
    }

    @Test
    void optional_r6_6_batchRenewalKeepsManyLeasesAlive() {
        LockClient b = client();
        requireCapability(b, TckRule.R6_6);
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            leases.add(b.lock(name(), renewingShortLease()).acquire(timing.slack()));
        }
        waitFor(timing.shortLease().multipliedBy(3));
        for (Lease lease : leases) {
            assertTrue(lease.isHeld(), "lease on '" + lease.lockName() + "' was lost while renewed in a batch");
        }
        leases.forEach(Lease::close);
        // Mixed TTLs, mixed held and lost, in a shuffled order: each answer and each TTL must be the request's own.
        SpiClient a = spiClient(TckRule.R6_6, null);
        LockClient c = client();
        List<io.locksmith.spi.RenewRequest> requests = new ArrayList<>();
        List<Boolean> expected = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Duration ttl = effectiveTtl(timing.slack().multipliedBy(3L * (i + 1)));
            String name = name();
            a.client().lock(name, LockOptions.builder().leaseTime(ttl).fixedLease().build()).acquire(timing.slack());
            Grant grant = a.faults().lastGrant(name).orElseThrow();
            boolean keep = i % 3 != 1;
            if (!keep) {
                requireExpiryHook(TckRule.R6_6);
                expireBehindClientsBack(name);
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

    // ================================================================ R7 Waiting

    @Test
    void required_r7_1_aBoundedWaitTimesOutAndLeavesNothingBehind() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        LockClient c = client();
        Lease held = a.lock(name, longLease()).acquire(timing.slack());
        DistributedLock waiting = b.lock(name, longLease());
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
        c.lock(name, longLease()).tryAcquire().orElseThrow(() -> new AssertionError("after timed-out waits and a"
                + " release, lock '" + name + "' was not free for a new client: the waits left something behind")).close();
    }

    @Test
    void required_r7_2_waitingIsInterruptibleAndLeavesNothingBehind() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        LockClient c = client();
        Lease held = a.lock(name, longLease()).acquire(timing.slack());
        AtomicBoolean flagSetAfterwards = new AtomicBoolean();
        Waiter waiter = new Waiter("tck-interrupted-waiter", () -> {
            try {
                return b.lock(name, longLease()).acquire(timing.slack().multipliedBy(5));
            } catch (LockInterruptedException e) {
                flagSetAfterwards.set(Thread.currentThread().isInterrupted());
                throw e;
            }
        });
        within(timing.slack(), "the waiter to start waiting").until(waiter::isParked);
        waiter.thread.interrupt();
        Throwable outcome = waiter.outcome(timing.slack());
        assertTrue(outcome instanceof LockInterruptedException, "an interrupted wait must end with"
                + " LockInterruptedException, ended with " + outcome);
        assertTrue(flagSetAfterwards.get(), "the waiter's interrupt flag was not set again");
        assertEquals(0, b.heldCount(), "the interrupted client counts a held lock");
        held.close();
        c.lock(name, longLease()).tryAcquire().orElseThrow(() -> new AssertionError("after an interrupted wait and a"
                + " release, lock '" + name + "' was not free for a new client: the wait left something behind")).close();
    }

    @Test
    void required_r7_3_aWaiterGetsTheLockWhenItIsReleased() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        Lease held = a.lock(name, longLease()).acquire(timing.slack());
        Waiter waiter = new Waiter("tck-waiter", () -> b.lock(name, longLease()).acquire(timing.slack().multipliedBy(3)));
        within(timing.slack(), "the waiter to start waiting").until(waiter::isParked);
        held.close();
        Lease handedOver = waiter.lease(timing.slack());
        assertTrue(handedOver.isHeld());
        if (hasCapability(a, Capability.FENCING)) {
            assertTrue(handedOver.fencingToken() > held.fencingToken(), "the waiter's token is not greater");
        }
        handedOver.close();
    }

    @Test
    void optional_r7_4_handoffByNotification() {
        LockClient a = client();
        requireCapability(a, TckRule.R7_4);
        // The waiter's client is the kit's own, through the FaultInjector: it polls only every two slacks, so a
        // missing notification shows plainly, and the kit can hold its attempts to force the holder's bounces.
        SpiClient b = spiClient(TckRule.R7_4, null, timing.slack().multipliedBy(2));
        FaultInjector gate = b.faults();
        String name = name();
        Duration expiryTtl = effectiveTtl(timing.shortLease());
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
            Lease held = a.lock(name, byExpiry && bounces == 0 ? fixedShortLease() : longLease()).acquire(timing.slack());
            long arrivedBefore = gate.waitingAttemptsArrived();
            Waiter waiter = new Waiter("tck-notified-waiter", () -> b.client().lock(name, longLease())
                    .acquire(timing.longLease()));
            // Waiting: it tried, subscribed, tried again, and parked, with no attempt under way (or, with no bounces,
            // it already has the lock of an expiry).
            within(timing.slack(), "the waiter to start waiting").until(() -> waiter.result.isDone()
                    || gate.waitingAttemptsArrived() >= arrivedBefore + 2 && gate.noWaitingAttemptInFlight()
                    && waiter.isParked());
            // The bounces: the holder lets go and takes the lock back while the waiter is held before the store,
            // so every release of one wait (one subscription), not only the first, must wake the waiter.
            for (int bounce = 0; bounce < bounces; bounce++) {
                gate.holdWaitingAttempts();
                // An attempt that passed the gate just before the hold (the waiter's poll) would race the holder's
                // release and retake: on RedLock it can win a majority of the masters in between. Let it end first.
                within(timing.slack(), "the waiter's attempt under way to end before the holder lets go")
                        .until(gate::noWaitingAttemptAtTheStore);
                long releasedAt = System.nanoTime();
                held.close();
                // An attempt that reached the store after the release began: the waiter was woken (or polled).
                boolean woken = awaitQuietly(wakeBound, () -> gate.lastWaitingAttemptAt() - releasedAt >= 0);
                afterRelease.add(woken ? TimeUnit.NANOSECONDS.toMillis(gate.lastWaitingAttemptAt() - releasedAt)
                        : wakeBound.toMillis() + 1);
                boolean last = bounce == bounces - 1;
                retakenAt = System.nanoTime();
                held = a.lock(name, byExpiry && last ? fixedShortLease() : longLease()).tryAcquire().orElseThrow(
                        () -> new AssertionError("the holder could not take lock '" + name + "' back after releasing"
                                + " it, although the only waiter was held before the store"));
                gate.resumeWaitingAttempts();
                within(timing.slack(), "the waiter to wait again after bounce " + bounce).until(
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

    /** How many of {@code millis} exceed {@code bound}. */
    private static long countOver(List<Long> millis, Duration bound) {
        return millis.stream().filter(value -> value > bound.toMillis()).count();
    }

    /** Waits until {@code condition} holds, at most {@code bound}; whether it held. */
    private static boolean awaitQuietly(Duration bound, java.util.function.BooleanSupplier condition) {
        long until = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - until >= 0) {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return true;
    }

    @Test
    void optional_r7_5_fairStoresServeWaitersInArrivalOrder() {
        LockClient a = client();
        requireCapability(a, TckRule.R7_5);
        String name = name();
        Lease held = a.lock(name, longLease()).acquire(timing.slack());
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        List<Waiter> waiters = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            LockClient waiterClient = client();
            int position = i;
            Waiter waiter = new Waiter("tck-fair-waiter-" + i, () -> {
                Lease lease = waiterClient.lock(name, longLease()).acquire(timing.slack().multipliedBy(4));
                order.add(position);
                lease.close();
                return lease;
            });
            within(timing.slack(), "waiter " + i + " to queue").until(waiter::isParked);
            if (hasCapability(a, Capability.INSPECT_WAITERS)) {
                within(timing.slack(), "waiter " + i + " to show in inspect").until(
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
    void optional_r7_6_inspectListsTheQueuedWaiters() {
        LockClient a = client();
        LockClient b = client();
        requireCapability(a, TckRule.R7_6);
        String name = name();
        Lease held = a.lock(name, longLease()).acquire(timing.slack());
        Waiter waiter = new Waiter("tck-listed-waiter", () -> b.lock(name, longLease()).acquire(timing.slack().multipliedBy(3)));
        within(timing.slack(), "the waiter on client " + b.clientId() + " to be listed by inspect").until(
                () -> a.inspect(name).map(info -> info.waiters().stream().anyMatch(
                        w -> w.clientId().equals(b.clientId()))).orElse(false));
        held.close();
        waiter.lease(timing.slack()).close();
    }

    // ================================================================ R8 Lifecycle, input, inspect

    @Test
    void required_r8_1_closingAClientReleasesItsLocks() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        Lease lease = a.lock(name, longLease()).acquire(timing.slack());
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        a.close();
        assertFalse(lease.isHeld(), "a lease of a closed client still reports isHeld()");
        assertTrue(lost.get() != null && lost.get().reason() == LossReason.CLIENT_CLOSED,
                "the holder was not told with CLIENT_CLOSED: " + lost.get());
        b.lock(name, longLease()).tryAcquire().orElseThrow(() -> new AssertionError("lock '" + name
                + "' (TTL " + timing.longLease() + ") was not free right after its client was closed")).close();
        lease.close();
        a.close();
    }

    @Test
    void required_r3_10_aLeaseUnderTheStoresMinimumIsRefusedBeforeAnyStoreCall() {
        SpiClient a = spiClient(TckRule.R3_10, null);
        Duration minimum = a.faults().provider().minimumTtl();
        assertTrue(minimum.compareTo(Duration.ZERO) > 0, "the provider states a minimum lease of " + minimum);
        String name = name();
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
    void required_r3_11_theLimitsHoldAtTheirEdges() {
        LockClient a = client();
        LockClient b = client();
        assertClearError(IllegalArgumentException.class,
                () -> LockOptions.builder().leaseTime(LockOptions.MAX_LEASE_TIME.plusNanos(1)), "a lease over the maximum");
        assertClearError(IllegalArgumentException.class,
                () -> LockOptions.builder().leaseTime(Duration.ofDays(1_000_000)), "a lease of a million days");
        assertClearError(IllegalArgumentException.class,
                () -> LockOptions.builder().maxHold(LockOptions.MAX_HOLD.plusNanos(1)), "a maximum hold over the maximum");
        // The maximum itself: granted, kept by the store (another client cannot take it), and for at most a day.
        String name = name();
        LockOptions longest = LockOptions.builder().leaseTime(LockOptions.MAX_LEASE_TIME).maxHold(LockOptions.MAX_HOLD)
                .fixedLease().build();
        try (Lease lease = a.lock(name, longest).acquire(timing.slack())) {
            assertTrue(b.lock(name, longLease()).tryAcquire().isEmpty(), "lock '" + name + "', held with the maximum"
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
        String free = name();
        a.lock(free, longLease()).acquire(Duration.ofSeconds(Long.MAX_VALUE)).close();
        a.lock(free, longLease()).tryAcquire(Duration.ofSeconds(Long.MAX_VALUE))
                .orElseThrow(() -> new AssertionError("tryAcquire(Long.MAX_VALUE s) of the free lock '" + free
                        + "' returned no lease")).close();
        assertTrue(b.inspect(free).isEmpty(), "lock '" + free + "' stayed taken after its leases were closed");
    }

    @Test
    void required_r8_2_badInputGetsAClearError() {
        LockClient a = client();
        assertClearError(NullPointerException.class, () -> a.lock(null), "a null name");
        assertClearError(IllegalArgumentException.class, () -> a.lock(""), "an empty name");
        assertClearError(IllegalArgumentException.class, () -> a.lock("   "), "a blank name");
        assertClearError(IllegalArgumentException.class, () -> a.lock("x".repeat(513)), "a name of 513 characters");
        assertClearError(IllegalArgumentException.class, () -> a.lock("a\nb"), "a name with a line break");
        assertClearError(NullPointerException.class, () -> a.inspect(null), "inspect(null)");
        assertClearError(NullPointerException.class, () -> a.lock(name(), null), "null options");
        DistributedLock lock = a.lock(name(), longLease());
        assertClearError(IllegalArgumentException.class, () -> lock.acquire(Duration.ofMillis(-1)), "a negative wait");
        assertClearError(IllegalArgumentException.class, () -> lock.tryAcquire(Duration.ofMillis(-1)), "a negative wait");
        assertClearError(NullPointerException.class, () -> lock.acquire(null), "a null wait");
        assertClearError(IllegalArgumentException.class, () -> LockOptions.builder().leaseTime(Duration.ZERO),
                "a zero lease time");
        assertTrue(a.inspect(lock.name()).isEmpty(), "rejected calls left lock '" + lock.name() + "' taken");
        LockClient closed = client();
        DistributedLock lockOfClosed = closed.lock(name(), longLease());
        closed.close();
        assertClearError(IllegalStateException.class, () -> closed.lock(name()), "lock() on a closed client");
        assertClearError(IllegalStateException.class, lockOfClosed::tryAcquire, "tryAcquire() on a closed client");
    }

    @Test
    void required_r8_3_inspectShowsTheHoldersIdentityAndToken() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        assertTrue(b.inspect(name).isEmpty(), "inspect of a never-used lock is not empty");
        try (Lease lease = a.lock(name, longLease()).acquire(timing.slack())) {
            LockInfo info = b.inspect(name).orElseThrow(() -> new AssertionError("inspect of a held lock is empty"));
            assertEquals(name, info.lockName());
            assertEquals(a.clientId(), info.holder().clientId(), "inspect names another client: " + info);
            assertEquals(Thread.currentThread().getName(), info.holder().thread(), "inspect names another thread: " + info);
            assertEquals(lease.holder(), info.holder(), "inspect shows another identity than the lease");
            assertEquals(lease.fencingToken(), info.fencingToken(), "inspect shows another token than the lease");
            info.timeToLive().ifPresent(ttl -> assertTrue(!ttl.isNegative() && ttl.compareTo(timing.longLease()) <= 0,
                    "inspect shows a time to live of " + ttl + " for a lease of " + timing.longLease()));
            assertEquals(info.holder(), b.lock(name, longLease()).inspect().map(LockInfo::holder).orElse(null));
        }
        assertTrue(b.inspect(name).isEmpty(), "inspect of a released lock is not empty");
    }

    @Test
    void required_r8_4_everyValidNameIsUsableAndDistinct() {
        String base = name();
        List<String> names = List.of(base, base + "/child", base + "%2Fchild", base + "/", "/" + base, "../" + base,
                base + " with spaces", base + ":ключ:名前", base + "-\uD83D\uDD12", base + "*", base + "?", base + "{tag}",
                base + "\\", base + "..", base + "#frag", base + "&q=1", base + "'\"",
                (base + "-").repeat(20).substring(0, 512));
        assertEquals(names.size(), new HashSet<>(names).size());
        LockClient a = client();
        LockClient b = client();
        List<Lease> held = new ArrayList<>();
        try {
            for (String name : names) {
                held.add(a.lock(name, longLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                        "could not take '" + name + "' while holding " + held.size() + " other names: two names map to one lock")));
            }
            for (Lease lease : held) {
                assertTrue(b.lock(lease.lockName(), longLease()).tryAcquire().isEmpty(),
                        "another client took the held lock '" + lease.lockName() + "'");
                assertEquals(lease.fencingToken(), b.inspect(lease.lockName()).map(LockInfo::fencingToken).orElse(null),
                        "inspect of '" + lease.lockName() + "' does not show its holder's token");
            }
        } finally {
            held.forEach(Lease::close);
        }
        for (String name : names) {
            b.lock(name, longLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                    "'" + name + "' stayed taken after its release")).close();
        }
    }

    // ================================================================ Sharpened rules (issue 13)

    @Test
    void required_r1_5_aRandomizedHistorySatisfiesTheLockModel() throws Exception {
        boolean dropHook = supportsExpiryHook();
        List<LockClient> contenders = List.of(client(), client(), client());
        boolean fencing = hasCapability(contenders.get(0), Capability.FENCING);
        List<String> names = List.of(name(), name());
        LockHistory history = new LockHistory();
        long seed = seed();
        long target = HISTORY_CONTENDED_ATTEMPTS;
        long stopAt = System.nanoTime() + timing.historyDuration().toNanos();
        java.util.concurrent.ConcurrentHashMap<String, LockHistory.Holding> current = new java.util.concurrent.ConcurrentHashMap<>();
        AtomicInteger drops = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        int threadsPerClient = 2;
        for (int c = 0; c < contenders.size(); c++) {
            for (int t = 0; t < threadsPerClient; t++) {
                LockClient client = contenders.get(c);
                java.util.SplittableRandom random = new java.util.SplittableRandom(seed * 31 + c * 7L + t);
                workers.add(helpers.submit(() -> {
                    while (System.nanoTime() - stopAt < 0 && history.contendedAttempts() < target
                            && !Thread.currentThread().isInterrupted()) {
                        historyStep(client, names.get(random.nextInt(names.size())), random, history, current,
                                dropHook && drops.get() < 6, drops);
                    }
                    return null;
                }));
            }
        }
        // Clients that close while one thread holds a lock and another waits: the close must release exactly the
        // client's own holdings (a close that deletes names shows as an overlap) and leave nothing behind.
        AtomicInteger closes = new AtomicInteger();
        java.util.SplittableRandom closerRandom = new java.util.SplittableRandom(seed * 31 + 101);
        workers.add(helpers.submit(() -> {
            while (System.nanoTime() - stopAt < 0 && history.contendedAttempts() < target
                    && !Thread.currentThread().isInterrupted()) {
                historyClientClose(names, closerRandom, history, current);
                closes.incrementAndGet();
            }
            return null;
        }));
        Duration bound = timing.historyDuration().plus(timing.slack().multipliedBy(3));
        for (Future<?> worker : workers) {
            try {
                worker.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                workers.forEach(w -> w.cancel(true));
                fail("a worker of the randomized history was stuck after " + bound + " (seed " + seed + "): " + history);
            } catch (ExecutionException e) {
                throw new AssertionError("a call of the randomized history failed (seed " + seed + "): " + e.getCause()
                        + "; " + history, e.getCause());
            }
        }
        System.out.println("R1.5 history (seed " + seed + "): " + history + ", " + closes + " client closes");
        assertTrue(history.holdings() > 0, "the randomized history made no holding at all: " + history);
        Optional<String> violation = history.check(fencing);
        assertTrue(violation.isEmpty(), () -> violation.get() + " [seed " + seed + ", rerun with -D" + SEED_PROPERTY
                + "=" + seed + "; " + history + "]");
        // Every holding was released and every closed client released its own: nothing may be left behind.
        LockClient last = client();
        for (String name : names) {
            last.lock(name, longLease()).tryAcquire(timing.slack()).orElseThrow(() -> new AssertionError("after the"
                    + " randomized history, lock '" + name + "' stayed taken although every holding was released or its"
                    + " client closed: " + last.inspect(name) + " [seed " + seed + "; " + history + "]")).close();
        }
    }

    /**
     * One client's life in the history: it takes one name and lets it go, takes the other, starts a second thread
     * waiting for the first name, then closes while holding and waiting. Its holdings end when the close is invoked.
     */
    private void historyClientClose(List<String> names, java.util.SplittableRandom random, LockHistory history,
                                    java.util.Map<String, LockHistory.Holding> current) throws Exception {
        LockClient closing = client();
        String first = names.get(random.nextInt(names.size()));
        String second = names.get(0).equals(first) ? names.get(1) : names.get(0);
        List<LockHistory.Holding> own = new ArrayList<>();
        AtomicBoolean closed = new AtomicBoolean();
        String holder = closing.clientId() + "/closing";
        // Once on the first name, so that the close has a name it locked before and does not hold now.
        Optional<Lease> once = timedHistoryAcquire(closing, first, history, current, holder, own, closed);
        once.ifPresent(lease -> releaseInHistory(lease, first, own.get(own.size() - 1), history, current));
        own.clear();
        timedHistoryAcquire(closing, second, history, current, holder, own, closed);
        Future<?> waiter = helpers.submit(() -> {
            try {
                timedHistoryAcquire(closing, first, history, current, holder + "-waiter", own, closed);
            } catch (RuntimeException e) {
                // The client closed under the wait: the wait ends, with an error, within its bound (recorded).
            }
            return null;
        });
        long roundTrip = Math.max(TimeUnit.MICROSECONDS.toNanos(500), tryLatency.get());
        java.util.concurrent.locks.LockSupport.parkNanos(roundTrip * 2 + random.nextLong(roundTrip * 4));
        long closeAt;
        synchronized (own) {
            closed.set(true);
            closeAt = System.nanoTime();
            for (LockHistory.Holding holding : own) {
                holding.releasing();
                current.remove(holding.name, holding);
            }
        }
        closing.close();
        history.completed("close of client " + closing.clientId() + " holding " + own.size() + " lock(s)", closeAt,
                timing.slack().toNanos(), false, false);
        waiter.get(timing.slack().multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
    }

    /** A timed acquire by a closing client, recorded; a holding granted after the close began ends at once. */
    private Optional<Lease> timedHistoryAcquire(LockClient client, String name, LockHistory history,
                                                java.util.Map<String, LockHistory.Holding> current, String holder,
                                                List<LockHistory.Holding> own, AtomicBoolean closed) {
        Duration wait = timing.shortLease();
        boolean contended = current.containsKey(name);
        long invokedAt = System.nanoTime();
        Optional<Lease> lease = Optional.empty();
        try {
            lease = client.lock(name, LockOptions.builder().leaseTime(timing.longLease()).fixedLease().build())
                    .tryAcquire(wait);
        } finally {
            history.completed("tryAcquire(" + wait.toMillis() + "ms) of '" + name + "' by closing client "
                    + client.clientId(), invokedAt, wait.plus(timing.slack()).toNanos(), true, contended);
        }
        lease.ifPresent(held -> {
            synchronized (own) {
                if (closed.get() && !held.isHeld()) {
                    // Handed out as the close began and lost to it (CLIENT_CLOSED) before anybody could use it.
                    return;
                }
                LockHistory.Holding holding = history.granted(name, holder, held.fencingToken(), "tryAcquire("
                        + wait.toMillis() + "ms)", invokedAt);
                held.onLost(event -> holding.lostReported(event.reason().name()));
                own.add(holding);
                if (closed.get()) {
                    holding.releasing();
                } else {
                    current.put(name, holding);
                }
            }
        });
        return lease;
    }

    private void releaseInHistory(Lease lease, String name, LockHistory.Holding holding, LockHistory history,
                                  java.util.Map<String, LockHistory.Holding> current) {
        current.remove(name, holding);
        long releaseAt = System.nanoTime();
        holding.releasing();
        lease.close();
        history.completed("release of '" + name + "' (token " + lease.fencingToken() + ")", releaseAt,
                timing.slack().toNanos(), false, false);
    }

    /** A moving average of {@code tryAcquire()} in the history, to size the holds by the store's speed. */
    private final java.util.concurrent.atomic.AtomicLong tryLatency = new java.util.concurrent.atomic.AtomicLong();

    /** One random operation of the history: an acquire of some kind, a short hold, sometimes a fault, a release. */
    private void historyStep(LockClient client, String name, java.util.SplittableRandom random, LockHistory history,
                             java.util.Map<String, LockHistory.Holding> current, boolean mayDrop, AtomicInteger drops) {
        int kind = random.nextInt(100);
        boolean renewing = random.nextBoolean();
        LockOptions options = renewing ? renewingShortLease() : LockOptions.builder().leaseTime(timing.longLease()).fixedLease().build();
        DistributedLock lock = client.lock(name, options);
        boolean contended = current.containsKey(name);
        long invokedAt = System.nanoTime();
        Optional<Lease> lease;
        String operation;
        long bound;
        if (kind < 75) {
            operation = "tryAcquire()";
            bound = timing.slack().toNanos();
            lease = lock.tryAcquire();
            long took = System.nanoTime() - invokedAt;
            tryLatency.updateAndGet(average -> average == 0 ? took : (average * 7 + took) / 8);
        } else if (kind < 92) {
            Duration wait = Duration.ofMillis(1 + random.nextInt(20));
            operation = "tryAcquire(" + wait.toMillis() + "ms)";
            bound = wait.plus(timing.slack()).toNanos();
            lease = lock.tryAcquire(wait);
        } else {
            Duration wait = timing.slack();
            operation = "acquire(" + wait.toMillis() + "ms)";
            bound = wait.plus(timing.slack()).toNanos();
            try {
                lease = Optional.of(lock.acquire(wait));
            } catch (LockTimeoutException e) {
                lease = Optional.empty();
            }
        }
        history.completed(operation + " of '" + name + "' by " + client.clientId(), invokedAt, bound, true, contended);
        if (lease.isEmpty()) {
            return;
        }
        Lease held = lease.get();
        LockHistory.Holding holding = history.granted(name, client.clientId() + "/" + Thread.currentThread().getName(),
                held.fencingToken(), operation, invokedAt);
        held.onLost(event -> holding.lostReported(event.reason().name()));
        current.put(name, holding);
        try {
            if (mayDrop && random.nextInt(60) == 0 && drops.incrementAndGet() <= 6) {
                // A fault: the store loses the lock behind the holder's back; the holder must be told.
                holding.droppedByKit();
                expireBehindClientsBack(name);
                awaitDropped(client, name, held.fencingToken());
            } else if (random.nextBoolean()) {
                // Held for a few store round trips, so that the other threads try it several times meanwhile: each
                // try on a held name is a chance of a double grant, on a fast store as on a slow one.
                long roundTrip = Math.max(TimeUnit.MICROSECONDS.toNanos(500), tryLatency.get());
                java.util.concurrent.locks.LockSupport.parkNanos(roundTrip + random.nextLong(roundTrip * 3));
            }
        } finally {
            current.remove(name, holding);
            long releaseAt = System.nanoTime();
            holding.releasing();
            held.close();
            history.completed("release of '" + name + "' (token " + held.fencingToken() + ")", releaseAt,
                    timing.slack().toNanos(), false, false);
        }
    }

    @Test
    void required_r2_5_ownershipIsPerHoldingNotPerClient() throws Exception {
        SpiClient a = spiClient(TckRule.R2_5, null);
        LockClient c = client();
        String name = name();
        Lease stale = a.client().lock(name, fixedShortLease()).acquire(timing.slack());
        Grant staleGrant = a.faults().lastGrant(name).orElseThrow();
        Duration currentTtl = timing.slack().multipliedBy(2);
        Lease current = inOtherThread(() -> a.client().lock(name, LockOptions.builder().leaseTime(currentTtl).fixedLease()
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
        assertTrue(c.lock(name, longLease()).tryAcquire().isEmpty(), "the stale holding's release freed lock '" + name
                + "', now held by the same client's next holding (token " + current.fencingToken() + ")");
        assertEquals(current.fencingToken(), c.inspect(name).map(LockInfo::fencingToken).orElse(null),
                "lock '" + name + "' should still show the next holding's token");
        assertTrue(current.isHeld(), "the next holding was lost to the stale holding's release or renewal");
        current.close();
    }

    @Test
    void required_r3_3_theStoreFreesALockAtItsTtlAndTheHolderKnowsFirst() {
        SpiClient a = spiClient(TckRule.R3_3, null);
        LockClient b = client();
        String name = name();
        Duration requested = timing.exactTtl();
        Duration ttl = a.faults().provider().effectiveTtl(requested);
        assertTrue(ttl.compareTo(requested) >= 0, "effectiveTtl(" + requested + ") is " + ttl + ": a store may round up, never down");
        long drift = ttl.toNanos() / 100 + TimeUnit.MILLISECONDS.toNanos(2);
        long precision = timing.expiryPrecision().toNanos();
        DistributedLock contender = b.lock(name, longLease());
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
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
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
    void required_r6_7_renewalSetsTheTtlItDoesNotAddToIt() {
        String name = name();
        LockClient a = client();
        // Three short leases long, renewed every short lease: a renewal thread stalled by a loaded machine does not
        // lose it, and by the time it is read it has been renewed two or three times.
        Duration requested = timing.shortLease().multipliedBy(3);
        Duration ttl = effectiveTtl(requested);
        LockOptions options = LockOptions.builder().leaseTime(requested).maxHold(timing.longLease()).build();
        try (Lease lease = a.lock(name, options).acquire(timing.slack())) {
            waitFor(requested);
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
    void required_r6_8_closingALeaseWhoseLockVanishedReportsTheLoss() {
        LockClient a = client();
        // The other side first: a release that removed the owner's lock must answer true, or every clean close
        // reports a loss that did not happen.
        String heldName = name();
        Lease held = a.lock(heldName, longLease()).acquire(timing.slack());
        AtomicReference<LeaseLostEvent> heldLost = new AtomicReference<>();
        held.onLost(heldLost::set);
        held.close();
        assertTrue(heldLost.get() == null, "closing a lease whose lock was still held reported a loss ("
                + heldLost.get() + "): release must answer true when it removed the owner's lock");
        requireExpiryHook(TckRule.R6_8);
        String name = name();
        Lease lease = a.lock(name, longLease()).acquire(timing.slack());
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        expireBehindClientsBack(name);
        awaitDropped(a, name, lease.fencingToken());
        long start = System.nanoTime();
        lease.close();
        long took = System.nanoTime() - start;
        assertTrue(lost.get() != null, "closing a lease whose store lock had vanished (deleted behind its back) did not"
                + " report the loss: release must answer false when it removed nothing");
        assertTrue(took <= timing.slack().toNanos(), "closing the lease took " + took / 1_000_000 + " ms");
        assertFalse(lease.isHeld());
    }

    @Test
    void optional_r7_8_aWaiterIsNotifiedWhenALockExpires() {
        LockClient a = client();
        requireCapability(a, TckRule.R7_8);
        SpiClient b = spiClient(TckRule.R7_8, null, timing.slack());
        List<Long> lateness = new ArrayList<>();
        Duration ttl = effectiveTtl(timing.shortLease());
        for (int trial = 0; trial < 3; trial++) {
            String name = name();
            long invokedAt = System.nanoTime();
            Lease expiring = a.lock(name, fixedShortLease()).acquire(timing.slack());
            Waiter waiter = new Waiter("tck-expiry-waiter", () -> b.client().lock(name, longLease())
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
        SpiClient holder = spiClient(TckRule.R7_8, null);
        Duration spiTtl = effectiveTtl(timing.exactTtl());
        notifiedAtTheSpi(holder, b.faults().provider(), spiTtl, false);
        if (!holder.client().capabilities().contains(Capability.SESSION_BOUND)) {
            notifiedAtTheSpi(holder, b.faults().provider(), spiTtl, true);
        }
    }

    /**
     * One check of R7.8 at the SPI: a lock granted to {@code holder} for {@code ttl} (renewed half-way through it
     * when {@code renew}) must reach a {@link NotifiedWaiter} that came after the grant. A waiter that comes only
     * after the expiry (a loaded machine), or a renewal that comes too late, checks nothing: it is tried again
     * with a fresh name, three times at most.
     */
    private void notifiedAtTheSpi(SpiClient holder, LockProvider waiterProvider, Duration ttl, boolean renew) {
        String what = renew ? "renewed half-way through its TTL after the waiter came: the notice must follow the"
                + " renewal, not the first TTL" : "granted before the waiter came and left to expire";
        long nearTheEnd = ttl.toNanos() - timing.expiryPrecision().toNanos();
        for (int attempt = 1; attempt <= 3; attempt++) {
            String name = name();
            long grantedAt = System.nanoTime();
            Lease lease = holder.client().lock(name, LockOptions.builder().leaseTime(ttl).fixedLease().build())
                    .acquire(timing.slack());
            Grant grant = holder.faults().lastGrant(name).orElseThrow();
            try (NotifiedWaiter waiter = new NotifiedWaiter(waiterProvider, name)) {
                if (waiter.gotItAtOnce()) {
                    assertTrue(System.nanoTime() - grantedAt >= nearTheEnd, "a waiter at the SPI got lock '" + name
                            + "' " + millisSince(grantedAt) + " ms after it was granted for " + ttl.toMillis() + " ms");
                    continue;
                }
                long from = grantedAt;
                if (renew) {
                    waitFor(Duration.ofNanos(Math.max(0, grantedAt + ttl.toNanos() / 2 - System.nanoTime())));
                    from = System.nanoTime();
                    boolean renewed = holder.faults().provider().renew(grant, ttl);
                    if (!renewed && from - grantedAt >= nearTheEnd) {
                        continue;
                    }
                    assertTrue(renewed, "renewing the held lock '" + name + "' half-way through its TTL of " + ttl
                            + " failed");
                }
                assertToldOfExpiry(waiter.awaitGrant(ttl), name, from, ttl, what);
                return;
            } finally {
                lease.close();
            }
        }
        Assumptions.abort("Skipped the SPI part of R7.8 (lock " + what + "): three times the kit could not start a"
                + " waiter (or renew) before a TTL of " + ttl.toMillis() + " ms ran out; the machine is too loaded");
    }

    /** The waiter got the lock within the TTL plus the expiry precision plus the notification latency of {@code from}. */
    private void assertToldOfExpiry(long acquiredAt, String name, long from, Duration ttl, String what) {
        long late = TimeUnit.NANOSECONDS.toMillis(acquiredAt - from - ttl.toNanos());
        long allowed = timing.expiryPrecision().plus(timing.notificationLatency()).toMillis();
        assertTrue(acquiredAt != NotifiedWaiter.NEVER && late <= allowed, "a waiter at the SPI that tries again only"
                + " when its subscription calls back " + (acquiredAt == NotifiedWaiter.NEVER ? "never got" : "got")
                + " lock '" + name + "'" + (acquiredAt == NotifiedWaiter.NEVER ? "" : " " + late + " ms") + " after its"
                + " TTL of " + ttl.toMillis() + " ms ran out (at most " + allowed + " ms allowed); the lock was " + what);
    }

    /**
     * A waiter at the SPI, as the shared client waits but without its poll: subscribes, tries once, and tries
     * again each time the subscription calls back (a queueing or polling-free store learns of the waiter from its
     * failed attempts, as from the client's).
     */
    private final class NotifiedWaiter implements AutoCloseable {
        static final long NEVER = Long.MIN_VALUE;
        private final LockProvider provider;
        private final String name;
        private final java.util.concurrent.Semaphore calledBack = new java.util.concurrent.Semaphore(0);
        private final AutoCloseable subscription;
        private final Owner owner;
        private Grant grant;

        NotifiedWaiter(LockProvider provider, String name) {
            this.provider = provider;
            this.name = name;
            this.owner = tckOwner("tck-notified-waiter");
            this.subscription = provider.subscribe(name, calledBack::release);
            grant = attempt();
        }

        /** Whether its first attempt, as it came, got the lock. */
        boolean gotItAtOnce() {
            return grant != null;
        }

        /** When the waiter got the lock, trying only on call-backs, or {@link #NEVER} within the TTL and the slack. */
        long awaitGrant(Duration ttl) {
            long deadline = System.nanoTime() + ttl.plus(timing.expiryPrecision()).plus(timing.notificationLatency())
                    .plus(timing.slack()).toNanos();
            while (grant == null) {
                long left = deadline - System.nanoTime();
                try {
                    if (left <= 0 || !calledBack.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                        return NEVER;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted", e);
                }
                calledBack.drainPermits();
                grant = attempt();
            }
            return System.nanoTime();
        }

        private Grant attempt() {
            return waitingAttempt(provider, name, owner);
        }

        @Override
        public void close() {
            closeQuietly(subscription);
            if (grant != null) {
                provider.release(grant);
            } else {
                provider.cancel(name, owner);
            }
        }
    }

    @Test
    void optional_r7_10_subscriptionsAreIndependentAndEndWhenClosed() {
        LockClient holder = client();
        requireCapability(holder, TckRule.R7_10);
        SpiClient leaving = spiClient(TckRule.R7_10, null);
        SpiClient staying = spiClient(TckRule.R7_10, null);
        LockProvider stayingProvider = staying.faults().provider();
        String name = name();
        // Both subscribers are waiters with a place at the store, as the shared client's are: a queueing store
        // tells a subscriber of the changes of its own predecessor only (LockProvider.subscribe).
        AtomicInteger closedOneCalled = new AtomicInteger();
        java.util.concurrent.Semaphore stayingCalled = new java.util.concurrent.Semaphore(0);
        Lease held = holder.lock(name, longLease()).acquire(timing.slack());
        AutoCloseable stayingSubscription = stayingProvider.subscribe(name, stayingCalled::release);
        Owner stayingOwner = tckOwner("tck-r7-10-staying");
        Owner leavingOwner = tckOwner("tck-r7-10-leaving");
        try {
            assertTrue(stayingSubscription != null, "subscribe returned null instead of a handle to end the"
                    + " subscription with: its callback can never be removed");
            assertTrue(waitingAttempt(stayingProvider, name, stayingOwner) == null, "a waiter got the held lock '"
                    + name + "'");
            AutoCloseable left = leaving.faults().provider().subscribe(name, closedOneCalled::incrementAndGet);
            assertTrue(left != null, "subscribe returned null instead of a handle to end the subscription with: its"
                    + " callback can never be removed");
            assertTrue(waitingAttempt(leaving.faults().provider(), name, leavingOwner) == null, "a waiter got the"
                    + " held lock '" + name + "'");
            closeQuietly(left);
            leaving.faults().provider().cancel(name, leavingOwner);
            int closedCallsBefore = closedOneCalled.get();
            for (int release = 1; release <= 2; release++) {
                held.close();
                Grant told = grantOnCallBacks(stayingProvider, stayingCalled, name, stayingOwner, timing.slack());
                assertTrue(told != null, "after another client's subscription to '" + name + "' was closed, this"
                        + " one was not told of release " + release + " within " + timing.slack().toMillis() + " ms"
                        + " (a waiter that tries again only when its subscription calls back never got the lock):"
                        + " closing one subscription must remove only its own callback");
                stayingProvider.release(told);
                if (release == 1) {
                    held = holder.lock(name, longLease()).acquire(timing.slack());
                    stayingCalled.drainPermits();
                    stayingOwner = tckOwner("tck-r7-10-staying");
                    assertTrue(waitingAttempt(stayingProvider, name, stayingOwner) == null, "a waiter got the held"
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

    private static Owner tckOwner(String role) {
        return new Owner(role + "-" + UUID.randomUUID(), new HolderIdentity(role, "tck", Thread.currentThread().getName(),
                Thread.currentThread().getId(), null));
    }

    /** One attempt of a waiter (it keeps its place at a queueing store); the grant, or null. */
    private Grant waitingAttempt(LockProvider provider, String name, Owner owner) {
        return provider.tryAcquire(new AcquireRequest(name, owner, timing.longLease(), true)).orElse(null);
    }

    /** Tries again only when {@code calledBack} is released, until a grant or {@code within} is over (null). */
    private Grant grantOnCallBacks(LockProvider provider, java.util.concurrent.Semaphore calledBack, String name,
                                   Owner owner, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            try {
                if (left <= 0 || !calledBack.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                    return null;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
            calledBack.drainPermits();
            Grant grant = waitingAttempt(provider, name, owner);
            if (grant != null) {
                return grant;
            }
        }
    }

    @Test
    void required_r7_9_tryAcquireDoesNotBlock() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        List<Long> roundTrips = new ArrayList<>();
        List<Long> tries = new ArrayList<>();
        try (Lease held = a.lock(name, longLease()).acquire(timing.slack())) {
            DistributedLock contender = b.lock(name, longLease());
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
    void required_r8_5_generatedDistinctNamesAreDistinctLocks() {
        long seed = seed();
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        LockClient a = client();
        LockClient b = client();
        String prefix = "tck-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        for (int trial = 0; trial < GENERATED_NAME_PAIRS; trial++) {
            String[] pair = ConfusableNames.pair(prefix, random, trial);
            String first = pair[0];
            String second = pair[1];
            String where = "generated pair " + (trial + 1) + " (seed " + seed + ", rerun with -D" + SEED_PROPERTY + "="
                    + seed + "): " + ConfusableNames.describe(first) + " and " + ConfusableNames.describe(second);
            try (Lease one = a.lock(first, longLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                    "could not take the free name " + where))) {
                Lease other = b.lock(second, longLease()).tryAcquire().orElseThrow(() -> new AssertionError(
                        "holding the first name blocked the second, distinct name: the store confused " + where));
                try (other) {
                    assertEquals(one.fencingToken(), b.inspect(first).map(LockInfo::fencingToken).orElse(null),
                            "inspect of the first name does not show its own holding: " + where);
                    assertEquals(other.fencingToken(), a.inspect(second).map(LockInfo::fencingToken).orElse(null),
                            "inspect of the second name does not show its own holding: " + where);
                    assertEquals(first, b.inspect(first).map(LockInfo::lockName).orElse(null), "inspect names another lock: " + where);
                }
                assertTrue(one.isHeld(), "releasing the second name lost the first: " + where);
                assertTrue(b.lock(first, longLease()).tryAcquire().isEmpty(), "releasing the second name freed the first: " + where);
            }
        }
    }

    @Test
    void required_r8_6_closingAClientReleasesExactlyItsOwnHoldings() {
        LockClient a = client();
        LockClient b = client();
        String lostByA = name();
        String heldByA = name();
        Lease expiring = a.lock(lostByA, fixedShortLease()).acquire(timing.slack());
        Lease kept = a.lock(heldByA, longLease()).acquire(timing.slack());
        Lease bHolds = b.lock(lostByA, longLease()).tryAcquire(timing.shortLease().plus(timing.slack())).orElseThrow(
                () -> new AssertionError("the fixed lease on '" + lostByA + "' never ran out (see R3.1)"));
        a.close();
        assertFalse(kept.isHeld());
        assertEquals(bHolds.fencingToken(), b.inspect(lostByA).map(LockInfo::fencingToken).orElse(null), "closing"
                + " client A released lock '" + lostByA + "' that A had lost and B now holds: close must release only the"
                + " client's current holdings, owner-checked");
        assertTrue(bHolds.isHeld());
        b.lock(heldByA, longLease()).tryAcquire().orElseThrow(() -> new AssertionError("lock '" + heldByA
                + "' was not free right after its client was closed")).close();
        bHolds.close();
        expiring.close();
    }

    @Test
    void required_r8_7_inspectShowsAnExpiredLockAsFree() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        Duration ttl = effectiveTtl(timing.shortLease());
        Lease lease = a.lock(name, fixedShortLease()).acquire(timing.slack());
        long grantedAt = System.nanoTime();
        assertTrue(b.inspect(name).isPresent(), "inspect of a held lock is empty");
        waitFor(Duration.ofNanos(grantedAt + ttl.toNanos() + timing.expiryPrecision().toNanos() - System.nanoTime()));
        Optional<LockInfo> after = b.inspect(name);
        assertTrue(after.isEmpty(), "inspect of lock '" + name + "' still shows " + after.orElse(null) + " "
                + timing.expiryPrecision().toMillis() + " ms after its TTL of " + ttl.toMillis() + " ms ran out");
        lease.close();
    }

    @Test
    void required_r8_8_theTraceIdReachesTheStore() {
        String trace = "trace-" + UUID.randomUUID().toString().replace("-", "");
        SpiClient traced = spiClient(TckRule.R8_8, () -> trace);
        String name = name();
        try (Lease lease = traced.client().lock(name, longLease()).acquire(timing.slack())) {
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
            SpiClient fromMdc = spiClient(TckRule.R8_8, null);
            String other = name();
            try (Lease lease = fromMdc.client().lock(other, longLease()).acquire(timing.slack())) {
                assertEquals(Optional.of(mdcTrace), fromMdc.client().inspect(other).flatMap(info -> info.holder().trace()),
                        "inspect does not show the trace id of the MDC key 'traceId'");
            }
        } finally {
            org.slf4j.MDC.remove("traceId");
        }
    }

    @Test
    void required_r8_11_theStoreDeclaresTheCapabilitiesItsUserExpects() {
        Set<Capability> expected;
        try {
            expected = Objects.requireNonNull(expectedCapabilities(), "expectedCapabilities() returned null");
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("Skipped because the kit subclass " + getClass().getSimpleName() + " does not implement"
                    + " expectedCapabilities(): rule R8.11 compares the provider's declaration with what its user expects");
            return;
        }
        Set<Capability> declared = client().capabilities();
        Set<Capability> missing = expected.isEmpty() ? EnumSet.noneOf(Capability.class) : EnumSet.copyOf(expected);
        missing.removeAll(declared);
        assertTrue(missing.isEmpty(), "the provider declares " + declared + " but " + getClass().getSimpleName()
                + " expects " + expected + ": " + missing + " is not declared, so the rules it switches on were"
                + " skipped instead of run");
    }

    @Test
    void required_r8_12_describeNamesTheStore() {
        SpiClient a = spiClient(TckRule.R8_12, null);
        String description = a.faults().storeProvider().describe();
        assertTrue(description != null && !description.isBlank(), "describe() answered '" + description + "': every"
                + " message about this store (failures, logs, lockctl) would name no store");
    }

    @Test
    void required_r9_11_anAmbiguousAcquireAtTheSpiLeavesNoOrphan() {
        SpiClient a = spiClient(TckRule.R9_11, null);
        LockClient b = client();
        for (FaultInjector.Moment moment : FaultInjector.Moment.values()) {
            String name = name();
            a.faults().failNext(FaultInjector.Call.TRY_ACQUIRE, moment);
            Optional<Lease> outcome;
            try {
                outcome = a.client().lock(name, longLease()).tryAcquire();
            } catch (io.locksmith.LockStoreException e) {
                outcome = Optional.empty();
            }
            assertFalse(a.faults().hasPending(), "the injected fault did not strike: the acquire never reached the provider");
            if (outcome.isPresent()) {
                assertTrue(outcome.get().isHeld());
                outcome.get().close();
            }
            Optional<Lease> next = b.lock(name, longLease()).tryAcquire(timing.slack());
            assertTrue(next.isPresent(), "an acquire of '" + name + "' whose " + (moment == FaultInjector.Moment.AFTER_EFFECT
                    ? "reply was lost after the store granted it" : "request was lost") + " left the lock taken (TTL "
                    + timing.longLease() + ") with nobody holding it: releaseAmbiguous must remove the owner's lock");
            next.get().close();
        }
    }

    @Test
    void required_r9_12_anAmbiguousReleaseOrRenewalLeavesNoOrphanAndNoFalseHolder() {
        SpiClient a = spiClient(TckRule.R9_12, null);
        LockClient b = client();
        for (FaultInjector.Moment moment : FaultInjector.Moment.values()) {
            String name = name();
            Lease lease = a.client().lock(name, fixedShortLease()).acquire(timing.slack());
            a.faults().failNext(FaultInjector.Call.RELEASE, moment);
            try {
                lease.close();
            } catch (io.locksmith.LockStoreException e) {
                // The release's outcome is unknown to the client: what matters is what the store does next.
            }
            assertFalse(lease.isHeld(), "a lease whose release failed still reports isHeld()");
            Duration bound = moment == FaultInjector.Moment.AFTER_EFFECT ? timing.slack()
                    : effectiveTtl(timing.shortLease()).plus(timing.slack());
            assertTrue(b.lock(name, longLease()).tryAcquire(bound).map(next -> {
                next.close();
                return true;
            }).orElse(false), "after a release of '" + name + "' whose " + (moment == FaultInjector.Moment.AFTER_EFFECT
                    ? "reply" : "request") + " was lost, the lock stayed taken for more than " + bound);
        }
        String renewed = name();
        Lease renewing = a.client().lock(renewed, renewingShortLease()).acquire(timing.slack());
        a.faults().failNext(FaultInjector.Call.RENEW, FaultInjector.Moment.AFTER_EFFECT)
                .failNext(FaultInjector.Call.RENEW, FaultInjector.Moment.BEFORE_EFFECT);
        // Both failures strike the next renewals, unless the first one cost the lease (renewal then stops, rightly,
        // and the lease must say so): on a loaded machine a failed renewal may leave too little of a short lease.
        within(timing.shortLease().multipliedBy(2).plus(timing.slack()), "both failing renewals to reach the provider,"
                + " or the lease to be reported lost").until(() -> !a.faults().hasPending() || !renewing.isHeld());
        if (renewing.isHeld()) {
            assertEquals(renewing.fencingToken(), b.inspect(renewed).map(LockInfo::fencingToken).orElse(null),
                    "the holder of '" + renewed + "' believes it holds the lock after two failed renewals, but the store"
                            + " does not have it");
        }
        renewing.close();
        b.lock(renewed, longLease()).tryAcquire(timing.slack()).orElseThrow(() -> new AssertionError("lock '" + renewed
                + "' stayed taken after its holder closed it")).close();
    }

    @Test
    void optional_r9_13_theEndOfASessionIsReportedToEveryHolder() {
        SpiClient s = spiClient(TckRule.R9_13, null);
        requireCapability(s.client(), TckRule.R9_13);
        LockClient other = client();
        String renewing = name();
        String fixed = name();
        Lease renewed = s.client().lock(renewing, longLease()).acquire(timing.slack());
        // A fixed lease the client never renews: only the provider's own report can tell its holder.
        Lease fixedLease = s.client().lock(fixed, LockOptions.builder().leaseTime(timing.longLease()).fixedLease().build())
                .acquire(timing.slack());
        AtomicReference<LeaseLostEvent> renewedLost = new AtomicReference<>();
        AtomicReference<LeaseLostEvent> fixedLost = new AtomicReference<>();
        renewed.onLost(renewedLost::set);
        fixedLease.onLost(fixedLost::set);
        try {
            endStoreSession(s.faults().storeProvider());
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("Skipped because the kit subclass " + getClass().getSimpleName() + " does not implement"
                    + " endStoreSession(LockProvider): rule R9.13 (" + TckRule.R9_13.title() + ") needs the store to end"
                    + " a client's session");
        }
        long endedAt = System.nanoTime();
        within(timing.slack(), "both holders on the ended session to be told (renewing '" + renewing + "', fixed '"
                + fixed + "'): the provider must report the session's grants through its LossListener")
                .until(() -> renewedLost.get() != null && fixedLost.get() != null);
        long toldAfter = millisSince(endedAt);
        assertFalse(renewed.isHeld(), "isHeld() is still true after the session ended");
        assertFalse(fixedLease.isHeld(), "isHeld() of the fixed lease is still true after the session ended");
        assertEquals(fixed, fixedLost.get().lockName());
        assertEquals(fixedLease.fencingToken(), fixedLost.get().fencingToken());
        for (String name : List.of(renewing, fixed)) {
            other.lock(name, longLease()).tryAcquire(timing.slack()).orElseThrow(() -> new AssertionError("lock '" + name
                    + "' stayed taken after its holder's session ended")).close();
        }
        // The provider goes on with a new session: the client is not broken by the end of the old one.
        Lease again = s.client().lock(name(), longLease()).acquire(timing.slack().multipliedBy(2));
        assertTrue(again.isHeld(), "the client could not lock after its session ended");
        again.close();
        renewed.close();
        fixedLease.close();
        System.out.println("R9.13: the holders were told " + toldAfter + " ms after the session ended");
    }

    // ================================================================ helpers


    /** The system property that fixes the seed of the generated names and the randomized history. */
    public static final String SEED_PROPERTY = "locksmith.tck.seed";
    /**
     * Acquire attempts on a held name the randomized history makes (when the store is fast enough to make them
     * within {@link TckTiming#historyDuration()}): a store that grants a held lock once in 1,000 such attempts
     * gets through 7,000 of them with probability (1 - 1/1000)^7000, under 0.1% (docs/TCK.md).
     */
    static final long HISTORY_CONTENDED_ATTEMPTS = 7_000;
    /** Generated name pairs per run of R8.5: every family of confusable names comes up several times. */
    static final int GENERATED_NAME_PAIRS = 84;
    /** Handoffs of R7.4, judged on their 80th percentile: every second one after an expiry. */
    static final int HANDOFFS = 10;
    /** Pairs of inspect and tryAcquire() of R7.9. */
    static final int TRY_ACQUIRE_SAMPLES = 9;
    /** Releases the holder of R7.4 takes back during each wait, before the handoff. */
    static final int NOTIFICATION_BOUNCES = 2;
    /** Operations of the contention workload of R1.4 and R5.3; every one must complete. */
    static final int WORKLOAD_OPERATIONS = 150;

    /**
     * The URI of the store under test, for the rules that open their own clients on it: through the kit's
     * {@link FaultInjector} at the SPI (R2.5, R3.3, R6.6, R9.11, R9.12), or with a trace id source (R8.8).
     * The default throws {@link UnsupportedOperationException}, and those rules are skipped, naming this hook.
     */
    protected String storeUri() {
        throw new UnsupportedOperationException("storeUri() is not implemented by " + getClass().getName());
    }

    /**
     * The capabilities the store under test is expected to declare: what its documentation promises (rule R8.11).
     * A provider that silently stops declaring one would otherwise pass the kit with that capability's rules
     * skipped. The default throws {@link UnsupportedOperationException}, and R8.11 is skipped, naming this hook.
     */
    protected Set<Capability> expectedCapabilities() {
        throw new UnsupportedOperationException("expectedCapabilities() is not implemented by " + getClass().getName());
    }

    /**
     * Ends the store session of {@code storeProvider} (the store's own provider of a client the kit opened on
     * {@link #storeUri()}), as the store itself ends a session it no longer trusts: ZooKeeper expires it (close a
     * second handle opened with the same session id and password), etcd revokes the client's lease. Only for
     * stores that declare {@code SESSION_BOUND}; the default throws {@link UnsupportedOperationException}, and
     * R9.13 is skipped, naming this hook.
     */
    protected void endStoreSession(LockProvider storeProvider) {
        throw new UnsupportedOperationException("endStoreSession(LockProvider) is not implemented by "
                + getClass().getName());
    }

    /**
     * The factory that serves {@link #storeUri()}; the default is the one {@link java.util.ServiceLoader} finds
     * for the URI's scheme. Override it for a factory that is not registered as a service.
     */
    protected LockProviderFactory storeFactory(String scheme) {
        for (LockProviderFactory factory : java.util.ServiceLoader.load(LockProviderFactory.class)) {
            if (factory.schemes().contains(scheme)) {
                return factory;
            }
        }
        throw new IllegalStateException("no LockProviderFactory on the class path serves the scheme '" + scheme
                + "' of storeUri(); override storeFactory(String)");
    }

    /** A client of the kit's own making: its provider is wrapped by {@code faults}. */
    record SpiClient(LockClient client, FaultInjector faults) {
    }

    private SpiClient spiClient(TckRule rule, Supplier<String> traceIds) {
        return spiClient(rule, traceIds, null);
    }

    private SpiClient spiClient(TckRule rule, Supplier<String> traceIds, Duration maxPollInterval) {
        String uri = requireStoreUri(rule);
        FaultInjector faults = new FaultInjector();
        LockClient.Builder builder = ProviderClientBuilder.create().uri(uri)
                .factory(faults.wrap(storeFactory(LockUri.parse(uri).scheme())));
        if (traceIds != null) {
            builder.traceIdSupplier(traceIds);
        }
        if (maxPollInterval != null) {
            builder.maxPollInterval(maxPollInterval);
        }
        LockClient client = builder.build();
        clients.add(client);
        return new SpiClient(client, faults);
    }

    private String requireStoreUri(TckRule rule) {
        try {
            return Objects.requireNonNull(storeUri(), "storeUri() returned null");
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("Skipped because the kit subclass " + getClass().getSimpleName() + " does not implement"
                    + " storeUri(): rule " + rule.id() + " (" + rule.title() + ") opens its own clients on the store");
            throw e;
        }
    }

    private boolean supportsStoreUri() {
        try {
            return storeUri() != null;
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    /** The TTL the store applies for {@code requested} (its provider's statement), or {@code requested}. */
    private Duration effectiveTtl(Duration requested) {
        if (!supportsStoreUri()) {
            return requested;
        }
        String uri = storeUri();
        FaultInjector probe = new FaultInjector();
        try (LockClient ignored = ProviderClientBuilder.create().uri(uri).factory(probe.wrap(storeFactory(LockUri.parse(uri).scheme())))
                .build()) {
            return probe.provider().effectiveTtl(requested);
        }
    }

    /** Waits until the store no longer shows the holding of {@code token} (a hook may expire a key 1 ms later). */
    private void awaitDropped(LockClient client, String name, long token) {
        within(timing.slack(), "the store to drop lock '" + name + "' (token " + token + ") after expireBehindClientsBack")
                .until(() -> client.inspect(name).map(info -> info.fencingToken() != token).orElse(true));
    }

    /** The seed of this run's generated inputs: the system property {@value #SEED_PROPERTY}, or a fresh one. */
    private static long seed() {
        Long fixed = Long.getLong(SEED_PROPERTY);
        return fixed != null ? fixed : new java.util.Random().nextLong();
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    /** A fresh lock name, unique to this run. */
    private String name() {
        return "tck-" + UUID.randomUUID();
    }

    private LockClient client() {
        LockClient client = Objects.requireNonNull(newClient(), "newClient() returned null");
        clients.add(client);
        return client;
    }

    private LockOptions longLease() {
        return LockOptions.builder().leaseTime(timing.longLease()).maxHold(timing.longLease().multipliedBy(10)).build();
    }

    private LockOptions fixedShortLease() {
        return LockOptions.builder().leaseTime(timing.shortLease()).fixedLease().build();
    }

    private LockOptions renewingShortLease() {
        return LockOptions.builder().leaseTime(timing.shortLease()).maxHold(timing.longLease()).build();
    }

    private static boolean hasCapability(LockClient client, Capability capability) {
        return client.capabilities().contains(capability);
    }

    private static void requireCapability(LockClient client, TckRule rule) {
        Capability capability = rule.capability().orElseThrow();
        Assumptions.assumeTrue(hasCapability(client, capability), () -> "Skipped because the provider does NOT declare "
                + capability + ": rule " + rule.id() + " (" + rule.title() + ") applies only to stores that do");
    }

    private boolean supportsExpiryHook() {
        try {
            expireBehindClientsBack(name());
            return true;
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    private void requireExpiryHook(TckRule rule) {
        if (!supportsExpiryHook()) {
            Assumptions.abort("Skipped because the kit subclass " + getClass().getSimpleName()
                    + " does not implement expireBehindClientsBack(String): rule " + rule.id() + " (" + rule.title()
                    + ") needs the store to drop a lock behind its holder's back");
        }
    }

    private WorkloadReport runWorkload() {
        List<LockClient> contenders = List.of(client(), client(), client());
        WorkloadReport report = ContentionWorkload.on(contenders, name())
                .threadsPerClient(3)
                .operations(WORKLOAD_OPERATIONS)
                .holdFor(Duration.ofMillis(1))
                .acquireWait(timing.slack().multipliedBy(5))
                .maxDuration(timing.workloadDuration())
                .lockOptions(longLease())
                .run();
        System.out.println(report);
        return report;
    }

    private ConditionFactory within(Duration bound, String what) {
        return await(what).atMost(bound).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5));
    }

    /** Lets time pass on the monotonic clock: for rules whose subject is time itself (a TTL, a renewal). */
    private void waitFor(Duration duration) {
        long until = System.nanoTime() + duration.toNanos();
        within(duration.plus(timing.slack()), duration + " to pass on the monotonic clock")
                .until(() -> System.nanoTime() - until >= 0);
    }

    /** Whether {@code condition} came true within {@code bound} (polled every 5 ms). */
    private static boolean awaitQuietly(Duration bound, Callable<Boolean> condition) {
        try {
            await().atMost(bound).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5)).until(condition);
            return true;
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            return false;
        }
    }

    private static void closeQuietly(AutoCloseable handle) {
        if (handle == null) {
            return;
        }
        try {
            handle.close();
        } catch (Exception e) {
            throw new AssertionError("closing a subscription failed: " + e, e);
        }
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private <T> T inOtherThread(Callable<T> action) throws Exception {
        Future<T> future = helpers.submit(action);
        try {
            return future.get(timing.slack().multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new AssertionError("an action in another thread did not finish within " + timing.slack().multipliedBy(3), e);
        }
    }

    private static void assertClearError(Class<? extends Throwable> expected, Runnable call, String what) {
        Throwable thrown = assertThrows(Throwable.class, call::run, what + " was accepted");
        assertTrue(expected.isInstance(thrown), what + " should throw " + expected.getSimpleName() + ", threw " + thrown);
        assertTrue(thrown.getMessage() != null && !thrown.getMessage().isBlank(), what + " threw " + thrown
                + " without a message");
    }

    /** A thread acquiring a lock, watched from the rule. */
    private final class Waiter {
        final Thread thread;
        final CompletableFuture<Lease> result = new CompletableFuture<>();
        volatile long acquiredAt;

        Waiter(String threadName, Supplier<Lease> acquire) {
            thread = new Thread(() -> {
                try {
                    Lease lease = acquire.get();
                    acquiredAt = System.nanoTime();
                    result.complete(lease);
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            }, threadName);
            thread.setDaemon(true);
            helperThreads.add(thread);
            thread.start();
        }

        /** Parked: waiting between attempts (or blocked in a store call). */
        boolean isParked() {
            Thread.State state = thread.getState();
            return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || result.isDone();
        }

        Lease lease(Duration bound) {
            try {
                return result.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            } catch (ExecutionException e) {
                throw new AssertionError("the waiter failed: " + e.getCause(), e.getCause());
            } catch (TimeoutException e) {
                throw new AssertionError("the waiter did not get the lock within " + bound, e);
            }
        }

        /** The exception the waiter ended with, or fails if it got a lease or is still waiting. */
        Throwable outcome(Duration bound) {
            try {
                Lease lease = result.get(bound.toMillis(), TimeUnit.MILLISECONDS);
                lease.close();
                return fail("the waiter got the lock instead of failing");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            } catch (ExecutionException e) {
                return e.getCause();
            } catch (TimeoutException e) {
                throw new AssertionError("the waiter was still waiting " + bound + " after being interrupted", e);
            }
        }
    }
}
