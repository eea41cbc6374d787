package io.locksmith.tck.kits;

import io.locksmith.Capability;
import io.locksmith.DistributedLock;
import io.locksmith.HolderIdentity;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.tck.ContentionWorkload;
import io.locksmith.tck.FaultInjector;
import io.locksmith.tck.RawStoreSession;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.WorkloadReport;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Assumptions;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every rule of every kit shares: the {@link StoreHooks hooks} of the store under test, the resources of the
 * running rule (its clients, providers and helper threads, all closed when the rule ends) and the helpers the rules
 * of several kits use. One context per test instance; the kits' lifecycle extension starts it before each rule and
 * closes it after.
 *
 * <p>A backend author never touches it: {@link io.locksmith.tck.LockTck} makes one from its hooks. A class that runs
 * one kit on its own makes one too: {@code new KitContext(hooks)}.
 */
public final class KitContext {

    /** The system property that fixes the seed of the generated names and the randomized history. */
    public static final String SEED_PROPERTY = "locksmith.tck.seed";
    /** Operations of the contention workload of R1.4 and R5.3; every one must complete. */
    static final int WORKLOAD_OPERATIONS = 150;
    /** Holdings of a primitive's contention workload (R11.2, R12.7), all threads together. */
    static final int PRIMITIVE_WORKLOAD_HOLDINGS = 60;
    /** Generated name pairs per run of R8.5: every family of confusable names comes up several times. */
    static final int GENERATED_NAME_PAIRS = 84;
    /** Handoffs of R7.4, judged on their 80th percentile: every second one after an expiry. */
    static final int HANDOFFS = 10;
    /** Releases the holder of R7.4 takes back during each wait, before the handoff. */
    static final int NOTIFICATION_BOUNCES = 2;
    /** Pairs of inspect and tryAcquire() of R7.9. */
    static final int TRY_ACQUIRE_SAMPLES = 9;
    /** Generated name pairs listed by R8.13, one of each family of confusable names. */
    static final int LISTED_PAIRS = 7;
    /** Releases of R7.12 with a waiter queued, and the newcomers' tryAcquire() after each. */
    static final int FAIR_ROUNDS = 2;
    static final int NEWCOMER_ATTEMPTS = 5;
    /** Subscribers of one name in R7.13. */
    static final int SUBSCRIBERS = 3;
    /** Releases of R7.14, each to a waiter that tries the moment it is called back. */
    static final int WOKEN_ROUNDS = 5;
    /** How long the waiter of R7.14 watches for its callback on a running thread, at most. */
    static final Duration MAX_SPIN = Duration.ofMillis(100);

    private final StoreHooks hooks;
    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
    private final List<Thread> helperThreads = new CopyOnWriteArrayList<>();
    private ExecutorService helpers;
    private TckTiming timing;

    /**
     * A context over {@code hooks}.
     *
     * @throws NullPointerException if {@code hooks} is null
     */
    public KitContext(StoreHooks hooks) {
        this.hooks = Objects.requireNonNull(hooks, "hooks cannot be null");
    }

    /** Before a rule: reads the timing, starts the helper threads. */
    void start() {
        timing = Objects.requireNonNull(hooks.timing(), "timing() returned null");
        helpers = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "tck-helper");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** After a rule: stops its threads and closes every client and provider it opened, the first failure thrown. */
    void close() throws Exception {
        if (helpers != null) {
            helpers.shutdownNow();
        }
        helperThreads.forEach(Thread::interrupt);
        Exception failure = null;
        for (AutoCloseable closeable : closeables) {
            try {
                closeable.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        closeables.clear();
        if (failure != null) {
            throw failure;
        }
    }

    // ================================================================ the store under test

    /** The kit class's simple name, for messages. */
    String kitName() {
        return hooks.kitName();
    }

    TckTiming timing() {
        return timing;
    }

    /** A new client on the store under test, closed when the rule ends. */
    LockClient client() {
        return closedAtTheEnd(Objects.requireNonNull(hooks.newClient(), "newClient() returned null"));
    }

    /** A new provider on the store under test, closed when the rule ends. */
    LockProvider provider() {
        return closedAtTheEnd(Objects.requireNonNull(hooks.newProvider(), "newProvider() returned null"));
    }

    void expireBehindClientsBack(String lockName) {
        hooks.expireBehindClientsBack(lockName);
    }

    Set<Capability> expectedCapabilities() {
        return hooks.expectedCapabilities();
    }

    /** Ends the session of {@code storeProvider} through the hook, or skips the rule, naming the hook. */
    void endStoreSession(TckRule rule, LockProvider storeProvider) {
        try {
            hooks.endStoreSession(storeProvider);
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("Skipped because the kit subclass " + kitName() + " does not implement"
                    + " endStoreSession(LockProvider): rule " + rule.id() + " (" + rule.title() + ") needs the store to"
                    + " end a client's session");
        }
    }

    private <T extends AutoCloseable> T closedAtTheEnd(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    /** A client through the kit's {@link FaultInjector}, or the rule is skipped naming {@code storeUri()}. */
    SpiClient spiClient(TckRule rule, Supplier<String> traceIds) {
        return spiClient(rule, traceIds, null);
    }

    /** As {@link #spiClient(TckRule, Supplier)}, polling at most every {@code maxPollInterval} while it waits. */
    SpiClient spiClient(TckRule rule, Supplier<String> traceIds, Duration maxPollInterval) {
        String uri = requireStoreUri(rule);
        FaultInjector faults = new FaultInjector();
        LockClient.Builder builder = ProviderClientBuilder.create().uri(uri)
                .factory(faults.wrap(hooks.storeFactory(LockUri.parse(uri).scheme())));
        if (traceIds != null) {
            builder.traceIdSupplier(traceIds);
        }
        if (maxPollInterval != null) {
            builder.maxPollInterval(maxPollInterval);
        }
        return new SpiClient(closedAtTheEnd(builder.build()), faults);
    }

    private String requireStoreUri(TckRule rule) {
        try {
            return Objects.requireNonNull(hooks.storeUri(), "storeUri() returned null");
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("Skipped because the kit subclass " + kitName() + " does not implement storeUri(): rule "
                    + rule.id() + " (" + rule.title() + ") opens its own clients on the store");
            throw e;
        }
    }

    boolean supportsStoreUri() {
        try {
            return hooks.storeUri() != null;
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    /** The TTL the store applies for {@code requested} (its provider's statement), or {@code requested}. */
    Duration effectiveTtl(Duration requested) {
        if (!supportsStoreUri()) {
            return requested;
        }
        String uri = hooks.storeUri();
        FaultInjector probe = new FaultInjector();
        try (LockClient ignored = ProviderClientBuilder.create().uri(uri)
                .factory(probe.wrap(hooks.storeFactory(LockUri.parse(uri).scheme()))).build()) {
            return probe.provider().effectiveTtl(requested);
        }
    }

    boolean supportsExpiryHook() {
        try {
            hooks.expireBehindClientsBack(name());
            return true;
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    /**
     * A session of {@code identity} in the store's own commands (hook {@code rawStoreSession}), closed when the rule
     * ends, or empty when the store refused to open it (a wrong password refused at login). The rule is skipped,
     * naming the hook, when the kit does not implement it; the application's own session must open.
     */
    Optional<RawStoreSession> rawStoreSession(TckRule rule, RawStoreSession.Identity identity) throws Exception {
        RawStoreSession session;
        try {
            session = hooks.rawStoreSession(identity);
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("Skipped because the kit subclass " + kitName() + " does not implement"
                    + " rawStoreSession(Identity): rule " + rule.id() + " (" + rule.title() + ") attacks a held lock"
                    + " with the store's own commands as other identities");
            throw e;
        } catch (Exception e) {
            if (identity == RawStoreSession.Identity.APPLICATION) {
                throw new AssertionError("rawStoreSession(APPLICATION) failed: the kit's control needs a session with"
                        + " the application's own credentials", e);
            }
            return Optional.empty();
        }
        return Optional.of(closedAtTheEnd(Objects.requireNonNull(session, "rawStoreSession(" + identity
                + ") returned null")));
    }

    /** Skips the rule, naming the hook, unless the kit can drop a lock behind its holder's back. */
    void requireExpiryHook(TckRule rule) {
        if (!supportsExpiryHook()) {
            Assumptions.abort("Skipped because the kit subclass " + kitName()
                    + " does not implement expireBehindClientsBack(String): rule " + rule.id() + " (" + rule.title()
                    + ") needs the store to drop a lock behind its holder's back");
        }
    }

    /** Waits until the store no longer shows the holding of {@code token} (a hook may expire a key 1 ms later). */
    void awaitDropped(LockClient client, String name, long token) {
        within(timing.slack(), "the store to drop lock '" + name + "' (token " + token + ") after expireBehindClientsBack")
                .until(() -> client.inspect(name).map(info -> info.fencingToken() != token).orElse(true));
    }

    static boolean hasCapability(LockClient client, Capability capability) {
        return client.capabilities().contains(capability);
    }

    /** Skips the rule, naming the capability, unless {@code client}'s store declares the one that switches it on. */
    static void requireCapability(LockClient client, TckRule rule) {
        Capability capability = rule.capability().orElseThrow();
        Assumptions.assumeTrue(hasCapability(client, capability), () -> "Skipped because the provider does NOT declare "
                + capability + ": rule " + rule.id() + " (" + rule.title() + ") applies only to stores that do");
    }

    // ================================================================ names and leases

    /** A fresh lock name, unique to this run. */
    String name() {
        return "tck-" + UUID.randomUUID();
    }

    LockOptions longLease() {
        return LockOptions.builder().leaseTime(timing.longLease()).maxHold(timing.longLease().multipliedBy(10)).build();
    }

    /**
     * Asserts that {@code client} gets {@code name} at once ({@code tryAcquire()}), or within {@code wait} if not null,
     * and lets it go: the end of a rule's story, that nothing stayed behind in the store.
     *
     * @param after what happened before that should have freed it, for the message ("after its release")
     */
    void assertFree(LockClient client, String name, Duration wait, String after) {
        DistributedLock lock = client.lock(name, longLease());
        Optional<Lease> lease = wait == null ? lock.tryAcquire() : lock.tryAcquire(wait);
        lease.orElseThrow(() -> new AssertionError("lock '" + name + "' stayed taken " + after)).close();
    }

    LockOptions fixedShortLease() {
        return LockOptions.builder().leaseTime(timing.shortLease()).fixedLease().build();
    }

    LockOptions renewingShortLease() {
        return LockOptions.builder().leaseTime(timing.shortLease()).maxHold(timing.longLease()).build();
    }

    /** The seed of this run's generated inputs: the system property {@value #SEED_PROPERTY}, or a fresh one. */
    static long seed() {
        Long fixed = Long.getLong(SEED_PROPERTY);
        return fixed != null ? fixed : new java.util.Random().nextLong();
    }

    // ================================================================ time and threads

    ConditionFactory within(Duration bound, String what) {
        return await(what).atMost(bound).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5));
    }

    /** Lets time pass on the monotonic clock: for rules whose subject is time itself (a TTL, a renewal). */
    void waitFor(Duration duration) {
        long until = System.nanoTime() + duration.toNanos();
        within(duration.plus(timing.slack()), duration + " to pass on the monotonic clock")
                .until(() -> System.nanoTime() - until >= 0);
    }

    static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    /** Runs {@code task} on a helper thread of the rule (interrupted when the rule ends). */
    <T> Future<T> submit(Callable<T> task) {
        return helpers.submit(task);
    }

    /** Runs {@code action} in another thread and waits for it, at most three slacks. */
    <T> T inOtherThread(Callable<T> action) throws Exception {
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
            throw new AssertionError("an action in another thread did not finish within "
                    + timing.slack().multipliedBy(3), e);
        }
    }

    /** A thread of its own acquiring a lock, watched from the rule. */
    Waiter waiter(String threadName, Supplier<Lease> acquire) {
        Waiter waiter = new Waiter(threadName, acquire);
        helperThreads.add(waiter.thread);
        waiter.thread.start();
        return waiter;
    }

    // ================================================================ waiting at the SPI

    /** An owner of the kit's own, for calls at the SPI. */
    static Owner tckOwner(String role) {
        return new Owner(role + "-" + UUID.randomUUID(), new HolderIdentity(role, "tck", Thread.currentThread().getName(),
                Thread.currentThread().getId(), null));
    }

    /** One attempt of a waiter (it keeps its place at a queueing store); the grant, or null. */
    Grant waitingAttempt(LockProvider provider, String name, Owner owner) {
        return provider.tryAcquire(new AcquireRequest(name, owner, timing.longLease(), true)).orElse(null);
    }

    /** Tries again only when {@code calledBack} is released, until a grant or {@code within} is over (null). */
    Grant grantOnCallBacks(LockProvider provider, Semaphore calledBack, String name, Owner owner, Duration within) {
        return grantOnCallBacks(provider, calledBack, name, owner, within, Duration.ZERO, attempt -> { });
    }

    /**
     * As {@link #grantOnCallBacks(LockProvider, Semaphore, String, Owner, Duration)}, watching for the callback on
     * this running thread for up to {@code spinFor} first (a parked thread sees it only when the scheduler wakes it),
     * and telling {@code attempted} the outcome of each attempt (the grant, or null).
     */
    Grant grantOnCallBacks(LockProvider provider, Semaphore calledBack, String name, Owner owner, Duration within,
                           Duration spinFor, Consumer<Grant> attempted) {
        long deadline = System.nanoTime() + within.toNanos();
        long spinUntil = System.nanoTime() + Math.min(spinFor.toNanos(), within.toNanos());
        while (true) {
            while (calledBack.availablePermits() == 0 && System.nanoTime() - spinUntil < 0) {
                Thread.onSpinWait();
            }
            boolean called = calledBack.availablePermits() > 0;
            if (!called) {
                long left = deadline - System.nanoTime();
                try {
                    called = left > 0 && calledBack.tryAcquire(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted", e);
                }
            }
            if (!called) {
                return null;
            }
            calledBack.drainPermits();
            Grant grant = waitingAttempt(provider, name, owner);
            attempted.accept(grant);
            if (grant != null) {
                return grant;
            }
        }
    }

    static void closeQuietly(AutoCloseable handle) {
        if (handle == null) {
            return;
        }
        try {
            handle.close();
        } catch (Exception e) {
            throw new AssertionError("closing a subscription failed: " + e, e);
        }
    }

    // ================================================================ workload and checks

    /** The contention workload of R1.4 and R5.3 on three new clients, its report printed. */
    WorkloadReport runWorkload() {
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

    /** Every operation completed, none timed out or failed, no worker hung, no two holders inside at once. */
    static void assertCompleteAndExclusive(WorkloadReport report) {
        assertEquals(0, report.errors(), () -> "operations failed: " + report);
        assertEquals(0, report.stuckThreads(), () -> "workers hung: " + report);
        assertEquals(0, report.acquireTimeouts(), () -> "acquires timed out under plain contention: " + report);
        assertEquals(WORKLOAD_OPERATIONS, report.operations(), () -> "not every operation completed: " + report);
        assertEquals(0, report.overlaps(), () -> "two holders were inside at once: " + report);
    }

    /** {@code call} throws {@code expected}, with a message. */
    static void assertClearError(Class<? extends Throwable> expected, Runnable call, String what) {
        Throwable thrown = assertThrows(Throwable.class, call::run, what + " was accepted");
        assertTrue(expected.isInstance(thrown), what + " should throw " + expected.getSimpleName() + ", threw " + thrown);
        assertTrue(thrown.getMessage() != null && !thrown.getMessage().isBlank(), what + " threw " + thrown
                + " without a message");
    }
}
