package io.locksmith.tck;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockLostException;
import io.locksmith.LockOptions;
import io.locksmith.LockTimeoutException;
import io.locksmith.LossReason;
import io.locksmith.spi.Capability;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
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
 * holder's back are skipped, naming the hook, unless {@link #expireBehindClientsBack(String)} is overridden.
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
        assertEquals(0, report.errors(), () -> "operations failed: " + report);
        assertEquals(0, report.stuckThreads(), () -> "workers hung: " + report);
        assertTrue(report.operations() > 0, () -> "no operation completed: " + report);
        assertEquals(0, report.overlaps(), () -> "two holders were inside at once: " + report);
    }

    // ================================================================ R2 Ownership

    @Test
    void required_r2_1_releaseByNonOwnerMustNotDeleteTheNewHoldersLock() {
        String name = name();
        LockClient a = client();
        LockClient b = client();
        LockClient c = client();
        Lease stale = a.lock(name, fixedShortLease()).acquire(timing.slack());
        Lease current = b.lock(name, longLease()).tryAcquire(timing.shortLease().plus(timing.slack())).orElseThrow(
                () -> new AssertionError("the first holder's fixed lease of " + timing.shortLease()
                        + " ran out but the lock stayed taken (see R3.1)"));
        stale.close();
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
        assertEquals(0, report.errors(), () -> "operations failed: " + report);
        assertTrue(report.operations() > 0, () -> "no operation completed: " + report);
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
        LockClient a = client();
        LockClient b = client();
        requireCapability(a, TckRule.R6_6);
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            leases.add(a.lock(name(), renewingShortLease()).acquire(timing.slack()));
        }
        waitFor(timing.shortLease().multipliedBy(3));
        for (Lease lease : leases) {
            assertTrue(lease.isHeld(), "lease on '" + lease.lockName() + "' was lost while renewed in a batch");
            assertTrue(b.lock(lease.lockName(), longLease()).tryAcquire().isEmpty(),
                    "another client took '" + lease.lockName() + "' while it was renewed in a batch");
        }
        leases.forEach(Lease::close);
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
        LockClient b = client();
        requireCapability(a, TckRule.R7_4);
        List<Long> latencies = new ArrayList<>();
        for (int trial = 0; trial < 3; trial++) {
            String name = name();
            Lease held = a.lock(name, longLease()).acquire(timing.slack());
            Waiter waiter = new Waiter("tck-notified-waiter", () -> b.lock(name, longLease()).acquire(timing.slack().multipliedBy(3)));
            within(timing.slack(), "the waiter to start waiting").until(waiter::isParked);
            long releasedAt = System.nanoTime();
            held.close();
            Lease handedOver = waiter.lease(timing.slack().multipliedBy(2));
            latencies.add(TimeUnit.NANOSECONDS.toMillis(waiter.acquiredAt - releasedAt));
            handedOver.close();
        }
        long best = latencies.stream().mapToLong(Long::longValue).min().orElseThrow();
        assertTrue(best <= timing.notificationLatency().toMillis(), "a waiter on another client took " + latencies
                + " ms to get a released lock; with a release notification it should take under "
                + timing.notificationLatency().toMillis() + " ms (the client's poll fallback is 500 ms or more)");
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

    // ================================================================ helpers

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
                .operations(60)
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
