package io.locksmith.internal;

import io.locksmith.DistributedLock;
import io.locksmith.DistributedReadWriteLock;
import io.locksmith.DistributedSemaphore;
import io.locksmith.LeaderElection;
import io.locksmith.HolderIdentity;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockEvent;
import io.locksmith.LockException;
import io.locksmith.LockInfo;
import io.locksmith.LockLostException;
import io.locksmith.LockOptions;
import io.locksmith.LossAction;
import io.locksmith.LossReason;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** The shared client: everything a backend should not repeat. */
final class DefaultLockClient implements LockClient {

    private static final Logger LOG = LoggerFactory.getLogger("io.locksmith");
    private static final String PROCESS = processName();

    /** The parameters every URI may carry, read by the client rather than the provider. */
    static final String PARAM_LEASE = "lease";
    static final String PARAM_RENEW = "renew";
    static final String PARAM_MAX_HOLD = "maxHold";
    /** The most store calls of the client in flight at once; {@link LockProvider#maxConcurrentCalls()} if absent. */
    static final String PARAM_MAX_IN_FLIGHT = "maxInFlight";

    private final String clientId;
    private final LockProvider provider;
    private final Set<Capability> capabilities;
    private final LockOptions defaultOptions;
    private final Supplier<String> traceIdSupplier;
    private final Events events;
    final WaitQueues waitQueues;
    final LeaseKeeper keeper;
    final long maxPollNanos;
    /** Every provider call made for a caller runs through this, so the caller's time bound holds whatever the store does. */
    final StoreCalls storeCalls;
    /** Whether the store is known to be unreachable: acquires then fail fast (R9.14). */
    final StoreOutage outage;
    /** The store's command time-out: the bound of a call without a shorter one. */
    final long commandTimeoutNanos;
    /** Whether the store frees a lock at its TTL on its own; if not, {@link #guaranteedReleases} does. */
    private final boolean storeAppliesTtl;
    /** The lease timer of a store that applies no TTL: releases a lock whose lease ran out, until the store answers. */
    private final GuaranteedReleases guaranteedReleases;
    private final AtomicLong ownerSequence = new AtomicLong();
    /** The identity {@link #newOwner()} built last on each thread (a thread's id never changes, its name may). */
    private final ThreadLocal<CachedHolder> lastHolder = new ThreadLocal<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Re-entry: which store lock a thread holds on a name through this client. */
    private final Map<ReentryKey, HeldLock> reentry = new ConcurrentHashMap<>();
    /** Provider-reported losses arrive by owner id. */
    private final Map<String, HeldLock> byOwnerId = new ConcurrentHashMap<>();
    /**
     * Owners whose acquire is in flight, with the loss a provider reported for a grant the client has not
     * registered yet (a session lost right after the grant): the grant is lost as soon as it is registered.
     */
    private final Map<String, EarlyLoss> inFlight = new ConcurrentHashMap<>();
    /** Acquires between {@link #acquiring} and {@link #acquireEnded}: close lets them end before the provider does. */
    private final java.util.concurrent.atomic.AtomicInteger acquiresUnderWay = new java.util.concurrent.atomic.AtomicInteger();
    private final Object lossLock = new Object();

    /** A loss reported before its grant was registered. */
    private record EarlyLoss(long fencingToken, String reason, Throwable cause) {
    }

    private static final EarlyLoss NO_LOSS = new EarlyLoss(Long.MIN_VALUE, null, null);

    record ReentryKey(String name, Thread thread) {
    }

    private DefaultLockClient(ClientBuilder builder, LockProvider provider, LockOptions defaultOptions, String store,
                              int maxInFlight) {
        this.clientId = builder.clientId;
        this.provider = provider;
        Set<Capability> declared = provider.capabilities();
        this.capabilities = declared.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(declared));
        this.defaultOptions = defaultOptions;
        this.traceIdSupplier = builder.traceIdSupplier;
        this.events = new Events(builder.listeners, store);
        this.maxPollNanos = builder.maxPollInterval.toNanos();
        this.outage = new StoreOutage(provider.describe());
        this.keeper = new LeaseKeeper(this, provider, events, "locksmith-leases-" + clientId.substring(0, Math.min(8, clientId.length())));
        this.storeCalls = new StoreCalls("locksmith-store-" + clientId.substring(0, Math.min(8, clientId.length())),
                provider.describe(), provider.callTimeLimit().map(DefaultLockClient::saturatedNanos)
                        .filter(limit -> limit >= 0).orElse(StoreCalls.NO_LIMIT), outage,
                maxInFlight > 0 ? maxInFlight : Math.max(1, provider.maxConcurrentCalls()));
        this.commandTimeoutNanos = saturatedNanos(provider.commandTimeout());
        // After the keeper and the store calls: a lingering subscription's timer runs on the keeper's thread, and
        // its close goes to a store-call thread.
        this.waitQueues = new WaitQueues(provider, capabilities.contains(Capability.RELEASE_NOTIFICATION),
                keeper::runLater,
                close -> storeCalls.runInBackground(null, "close of a lingering release subscription", close));
        outage.start(provider, storeCalls, keeper::runLater, waitQueues::wakeAll, commandTimeoutNanos);
        this.storeAppliesTtl = provider.appliesTtl();
        this.guaranteedReleases = new GuaranteedReleases(provider, storeCalls, keeper::runLater, commandTimeoutNanos,
                waitQueues::released);
    }

    static LockClient open(ClientBuilder builder) {
        LockUri uri = LockUri.parse(builder.uri);
        LockOptions fromUri = lockOptionsFrom(uri);
        int maxInFlight = uri.integer(PARAM_MAX_IN_FLIGHT, 0, 1, 65_536);
        LockProviderFactory factory = builder.factory != null
                ? builder.factory
                : ProviderRegistry.forScheme(uri.scheme(), uri.toString());
        if (builder.factory != null && !factory.schemes().contains(uri.scheme())) {
            throw new LockConfigurationException("the given factory serves " + factory.schemes()
                    + ", not the scheme '" + uri.scheme() + "' of '" + uri + "'");
        }
        // Settings first, without connecting: a typo is named at once, not after the store's connect time-out.
        if (factory.validate(uri) && !uri.unreadParameters().isEmpty()) {
            throw unknownParameters(uri);
        }
        // The provider reports losses to the client, which does not exist yet: go through a holder.
        LossRelay relay = new LossRelay();
        LockProvider provider;
        try {
            provider = factory.create(uri, new ProviderContext(builder.clientId, relay));
        } catch (RuntimeException e) {
            // A provider reads its settings before it connects: a typo must be named as such, not reported as the
            // store being unreachable.
            if (!(e instanceof LockConfigurationException) && !uri.unreadParameters().isEmpty()) {
                LockConfigurationException typo = unknownParameters(uri);
                typo.addSuppressed(e);
                throw typo;
            }
            throw e;
        }
        try {
            if (!uri.unreadParameters().isEmpty()) {
                throw unknownParameters(uri);
            }
            LockOptions defaults = builder.defaultLockOptions != null ? builder.defaultLockOptions : fromUri;
            DefaultLockClient client = new DefaultLockClient(builder, provider, defaults, uri.scheme(), maxInFlight);
            try {
                client.checkTtl(defaults.leaseTime(), null);
            } catch (IllegalArgumentException e) {
                client.storeCalls.close();
                throw new LockConfigurationException("invalid lease time in '" + uri + "': " + e.getMessage(), e);
            }
            relay.client = client;
            LOG.debug("lock client {} opened on {}", client.clientId, provider.describe());
            return client;
        } catch (RuntimeException e) {
            closeQuietly(provider, e);
            throw e;
        }
    }

    private static LockConfigurationException unknownParameters(LockUri uri) {
        Set<String> unread = uri.unreadParameters();
        return new LockConfigurationException("unknown parameter" + (unread.size() > 1 ? "s " : " ") + unread
                + " in '" + uri + "'; known: " + uri.readParameters());
    }

    private static LockOptions lockOptionsFrom(LockUri uri) {
        LockOptions.Builder options = LockOptions.builder();
        Duration lease = uri.duration(PARAM_LEASE, LockOptions.DEFAULT_LEASE_TIME);
        boolean renewing = uri.bool(PARAM_RENEW, true);
        Optional<String> maxHold = uri.parameter(PARAM_MAX_HOLD);
        Duration maxHoldTime = maxHold.isPresent() && !maxHold.get().equalsIgnoreCase("none")
                ? uri.duration(PARAM_MAX_HOLD, null) : null;
        try {
            options.leaseTime(lease);
            if (!renewing) {
                options.fixedLease();
            }
            if (maxHold.isPresent() && maxHoldTime == null) {
                options.unboundedHold();
            } else if (maxHoldTime != null) {
                options.maxHold(maxHoldTime);
            } else if (lease.compareTo(LockOptions.DEFAULT_MAX_HOLD) > 0) {
                options.maxHold(lease);
            }
            return options.build();
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException("invalid lock options in '" + uri + "': " + e.getMessage(), e);
        }
    }

    private static final class LossRelay implements io.locksmith.spi.LossListener {
        volatile DefaultLockClient client;

        @Override
        public void lost(Grant grant, String reason, Throwable cause) {
            DefaultLockClient target = client;
            if (target != null) {
                target.providerReportedLoss(grant, reason, cause);
            }
        }
    }

    // ---------------------------------------------------------------- LockClient

    @Override
    public DistributedLock lock(String name) {
        return lock(name, defaultOptions);
    }

    @Override
    public DistributedLock lock(String name, LockOptions options) {
        LockNames.validate(name);
        Objects.requireNonNull(options, "options cannot be null");
        ensureOpen();
        Duration ttl = checkTtl(options.leaseTime(), name);
        return new DefaultDistributedLock(this, name, options, ttl);
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits) {
        return semaphore(name, permits, defaultOptions);
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
        ensureOpen();
        return new SlotSemaphore(this, name, permits, options, "semaphore", "#permit");
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name) {
        return readWriteLock(name, defaultOptions, DistributedReadWriteLock.DEFAULT_MAX_READERS);
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name, LockOptions options, int maxReaders) {
        ensureOpen();
        return new DefaultReadWriteLock(this, name, options, maxReaders);
    }

    @Override
    public LeaderElection election(String name) {
        return election(name, defaultOptions);
    }

    @Override
    public LeaderElection election(String name, LockOptions options) {
        ensureOpen();
        return new DefaultLeaderElection(this, name, options);
    }

    private Duration checkTtl(Duration requested, String name) {
        Duration effective;
        try {
            // The store's own refusal first: its message says what the store can do (etcd: whole seconds).
            effective = provider.effectiveTtl(requested);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException((name == null ? "" : "lock '" + name + "': ") + e.getMessage(), e);
        }
        Duration minimum = provider.minimumTtl();
        if (requested.compareTo(minimum) < 0) {
            throw new IllegalArgumentException((name == null ? "" : "lock '" + name + "': ") + "a lease time of "
                    + requested + " is under the " + minimum + " minimum of " + provider.describe()
                    + " (the acquire's round trips plus the drift allowance would use it all up); ask for at least "
                    + minimum);
        }
        return effective;
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        LockNames.validate(name);
        ensureOpen();
        return inspectWithin(name);
    }

    @Override
    public Optional<LockInfo> inspect(String name, Duration timeout) {
        LockNames.validate(name);
        Objects.requireNonNull(timeout, "timeout cannot be null");
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        ensureOpen();
        // A known outage answers at once: a health check must not wait for a store that refuses connections.
        outage.check(name);
        try {
            return storeCalls.call(name, "inspect", () -> provider.inspect(name), saturatedNanos(timeout), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.locksmith.LockInterruptedException(name, e);
        }
    }

    @Override
    public List<LockInfo> list(String prefix, Duration timeout) {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(timeout, "timeout cannot be null");
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        ensureOpen();
        try {
            // Bounded like every store call: a listing that takes longer goes on in the background, unseen.
            return List.copyOf(storeCalls.call(null, "list '" + prefix + "*'", () -> provider.list(prefix),
                    timeout.toNanos(), null));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.locksmith.LockInterruptedException(null, e);
        }
    }

    /** Asks the store who holds {@code name}, waiting at most the command time-out. */
    Optional<LockInfo> inspectWithin(String name) {
        try {
            return storeCalls.call(name, "inspect", () -> provider.inspect(name), commandTimeoutNanos, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.locksmith.LockInterruptedException(name, e);
        }
    }

    /**
     * Releases {@code grant} in the store, waiting at most the command time-out. An interrupt does not stop it: a
     * release is the clean-up an interrupted holder must still do (its flag is kept for the caller).
     */
    boolean releaseWithin(Grant grant) {
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + commandTimeoutNanos;
        // The first try gets the whole command time-out, exactly: a provider whose call limit is the command
        // time-out is then called on this thread (StoreCalls), which a bound a few nanoseconds short would forbid.
        long bound = commandTimeoutNanos;
        // What an interrupted try answered after all (within the interrupt's grace, or later): a release the store did
        // must not turn into "lost during the work" because the next try finds the lock gone.
        java.util.concurrent.atomic.AtomicBoolean earlierTryAnswered = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean earlierTryRemoved = new java.util.concurrent.atomic.AtomicBoolean();
        Consumer<Boolean> lateAnswer = removed -> {
            if (removed) {
                earlierTryRemoved.set(true);
            }
            earlierTryAnswered.set(true);
        };
        try {
            while (true) {
                try {
                    boolean removed = storeCalls.call(grant.name(), "release", () -> provider.release(grant), bound,
                            lateAnswer);
                    return removed || earlierTryRemoved.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                    if (earlierTryAnswered.get()) {
                        return earlierTryRemoved.get(); // the interrupted try was answered within the grace
                    }
                    // Interrupted while waiting: the call was interrupted too; ask again within what is left.
                    bound = Math.max(0, deadline - System.nanoTime());
                    if (deadline - System.nanoTime() <= 0) {
                        throw new io.locksmith.LockStoreException(grant.name(), provider.describe()
                                + " did not answer release within the command time-out", e);
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    @Override
    public String clientId() {
        return clientId;
    }

    @Override
    public String describe() {
        return provider.describe();
    }

    @Override
    public Set<Capability> capabilities() {
        return capabilities;
    }

    @Override
    public int heldCount() {
        return keeper.held().size();
    }

    @Override
    public Duration minimumLeaseTime() {
        return provider.minimumTtl();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        waitQueues.close();
        List<HeldLock> stillHeld = new ArrayList<>(keeper.held());
        RuntimeException failure = null;
        for (HeldLock lock : stillHeld) {
            lose(lock, LossReason.CLIENT_CLOSED, "the lock client was closed while the lease was held", null);
            try {
                releaseWithin(lock.grant);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        // Acquires still at the store end soon (woken waiters see the closed client; a grant that lands now is
        // released by registerHeld), and so do the clean-ups they started (a waiter's cancel that outlived its grace
        // goes on in the background). Closing the provider under them would leave such a grant or queue place in the
        // store until its TTL with nobody holding it: give them the command time-out to end.
        long deadline = System.nanoTime() + commandTimeoutNanos;
        while ((acquiresUnderWay.get() > 0 || storeCalls.inFlight() > 0) && System.nanoTime() - deadline < 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(1));
        }
        // Releases still retried for a store without a TTL end here: closing the provider ends its session.
        guaranteedReleases.close();
        keeper.close();
        storeCalls.close();
        try {
            provider.close();
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        if (failure != null) {
            LOG.warn("closing the lock client on {} did not release everything cleanly; what was not released"
                    + " runs out at its TTL", provider.describe(), failure);
        }
    }

    boolean isClosed() {
        return closed.get();
    }

    void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("lock client " + clientId + " on " + provider.describe() + " is closed");
        }
    }

    // ---------------------------------------------------------------- used by locks and leases

    LockProvider provider() {
        return provider;
    }

    Events events() {
        return events;
    }

    io.locksmith.spi.Owner newOwner() {
        String traceId;
        try {
            traceId = traceIdSupplier.get();
        } catch (RuntimeException e) {
            traceId = null;
        }
        return new io.locksmith.spi.Owner(clientId + ":" + ownerSequence.incrementAndGet(), holderFor(traceId));
    }

    /**
     * An owner for the next attempt of the acquire that {@code previous} made: a new id (the store may refuse the old
     * one after an ambiguous attempt), the same holder identity, which an asynchronous acquire took on its caller's
     * thread and must not take again on a pool thread.
     */
    io.locksmith.spi.Owner nextOwner(io.locksmith.spi.Owner previous) {
        return new io.locksmith.spi.Owner(clientId + ":" + ownerSequence.incrementAndGet(), previous.holder());
    }

    /**
     * This thread's identity with {@code traceId}: built once per thread and reused while its name and the trace id
     * stay the same, so that a backend that encodes it can reuse the encoding too (same instance).
     */
    private HolderIdentity holderFor(String traceId) {
        Thread thread = Thread.currentThread();
        String threadName = thread.getName();
        String trace = traceId == null || traceId.isEmpty() ? null : traceId;
        CachedHolder last = lastHolder.get();
        if (last != null && last.threadName().equals(threadName) && Objects.equals(last.traceId(), trace)) {
            return last.holder();
        }
        HolderIdentity holder = new HolderIdentity(clientId, PROCESS, threadName, thread.getId(), trace);
        lastHolder.set(new CachedHolder(threadName, trace, holder));
        return holder;
    }

    /** A thread's identity, with the raw thread name and trace id it was built from. */
    private record CachedHolder(String threadName, String traceId, HolderIdentity holder) {
    }

    /** The holding on {@code name} that the current thread would re-enter, or null. */
    HeldLock reentrantHold(String name) {
        return reentry.get(new ReentryKey(name, Thread.currentThread()));
    }

    /**
     * Ends {@code lock}'s binding to its working thread (see {@link io.locksmith.Lease#handOff()}): always, or only if
     * the caller is another thread. From then on that thread does not re-enter it.
     */
    void unbind(HeldLock lock, boolean always) {
        Thread bound = lock.unbindUnlessOn(Thread.currentThread(), always);
        if (bound != null && lock.reentrant) {
            reentry.remove(new ReentryKey(lock.name(), bound), lock);
        }
    }

    /** An acquire for {@code owner} starts: keep provider loss reports that arrive before its grant is registered. */
    void acquiring(io.locksmith.spi.Owner owner) {
        acquiresUnderWay.incrementAndGet();
        inFlight.put(owner.id(), NO_LOSS);
    }

    /**
     * The acquire for {@code owner} goes on after a grant that was lost before it was handed out (registering it took
     * the owner's entry): keep loss reports for its next grant again.
     */
    void stillAcquiring(io.locksmith.spi.Owner owner) {
        inFlight.put(owner.id(), NO_LOSS);
    }

    /** The acquire for {@code owner} ended, granted or not. */
    void acquireEnded(io.locksmith.spi.Owner owner) {
        inFlight.remove(owner.id());
        acquiresUnderWay.decrementAndGet();
    }

    void registerHeld(HeldLock lock) {
        Thread thread = lock.thread();
        if (lock.reentrant && thread != null) {
            reentry.put(new ReentryKey(lock.name(), thread), lock);
        }
        EarlyLoss early;
        synchronized (lossLock) {
            byOwnerId.put(lock.grant.owner().id(), lock);
            early = inFlight.remove(lock.grant.owner().id());
        }
        keeper.add(lock);
        if (early != null && early.fencingToken() == lock.grant.fencingToken()) {
            lose(lock, LossReason.SESSION_LOST, early.reason(), early.cause());
        }
        if (closed.get()) {
            // The client closed while this acquire was in flight: do not leave the lock behind.
            lose(lock, LossReason.CLIENT_CLOSED, "the lock client was closed during the acquire", null);
            releaseInStore(lock);
        }
    }

    private void forget(HeldLock lock) {
        unbind(lock, true);
        byOwnerId.remove(lock.grant.owner().id(), lock);
        keeper.remove(lock);
    }

    /** The last lease on {@code lock} was closed by {@link io.locksmith.Lease#closeAsync()}: release off the caller. */
    java.util.concurrent.CompletableFuture<Void> lastLeaseClosedAsync(HeldLock lock, HeldLock.State previous) {
        // Forgotten here, so that the holding is gone locally when closeAsync returns; the store request goes on.
        forget(lock);
        // A copy: a caller that cancels what it got (a cancelled coroutine, a disposed Mono) must not cancel the
        // release itself before a pool thread has run it; the lock would then stay until its TTL.
        return storeCalls.runAsync(lock.name(), () -> lastLeaseClosed(lock, previous)).copy();
    }

    /**
     * {@link io.locksmith.Lease#extend}: the store keeps {@code lock} for {@code ttl} from now (a renewal with that TTL,
     * owner-checked), and the local deadline moves with it.
     */
    boolean extend(HeldLock lock, Duration ttl) {
        if (lock.options.isRenewing()) {
            throw new IllegalStateException("the lease on lock '" + lock.name() + "' renews itself every "
                    + lock.options.leaseTime() + ": its renewals would undo a new time; extend() is for a lease that"
                    + " does not renew (LockOptions.builder().fixedLease())");
        }
        if (ttl.isZero() || ttl.isNegative() || ttl.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("ttl must be positive and at most " + LockOptions.MAX_LEASE_TIME
                    + ", was " + ttl + " [lock '" + lock.name() + "']");
        }
        Duration effective = checkTtl(ttl, lock.name());
        ensureOpen();
        if (!lock.isHeld(System.nanoTime())) {
            return false;
        }
        outage.check(lock.name());
        long sentAt = System.nanoTime();
        boolean confirmed;
        try {
            confirmed = storeCalls.call(lock.name(), "extend", () -> provider.renew(lock.grant, effective),
                    commandTimeoutNanos, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.locksmith.LockInterruptedException(lock.name(), e);
        }
        if (!confirmed) {
            lose(lock, LossReason.TAKEN_AWAY, "the store no longer had this holder's lock when it was extended", null);
            return false;
        }
        lock.extendedTo(sentAt, saturatedNanos(effective));
        keeper.add(lock); // its deadline moved: the keeper wakes for the new one
        events.emit(LockEvent.Type.RENEWED, lock.name(), lock.grant.fencingToken(), lock.grant.owner().holder(), 0, null);
        return true;
    }

    /**
     * The last lease on {@code lock} was closed by {@link io.locksmith.Lease#closeAfter}: forgotten here at once, kept in
     * the store for {@code keep}. A store that applies a TTL gets that TTL (owner-checked, so the lock holds even if
     * this process ends); one whose locks live with the session, or one that did not answer, gets the release from
     * this client at that time.
     */
    void lastLeaseClosedAfter(HeldLock lock, HeldLock.State previous, Duration keep) {
        if (previous != HeldLock.State.HELD) {
            lastLeaseClosed(lock, previous);
            return;
        }
        forget(lock);
        long releaseAt = System.nanoTime() + saturatedNanos(keep);
        boolean storeKeepsIt = false;
        if (storeAppliesTtl && keep.compareTo(provider.minimumTtl()) >= 0) {
            try {
                Duration ttl = provider.effectiveTtl(keep);
                storeKeepsIt = storeCalls.call(lock.name(), "keep after close", () -> provider.renew(lock.grant, ttl),
                        commandTimeoutNanos, null);
                if (!storeKeepsIt) {
                    LOG.warn("lock '{}' (token {}) was no longer held in {} when closed: it was lost during the work",
                            lock.name(), lock.grant.fencingToken(), provider.describe());
                    waitQueues.released(lock.name());
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                LOG.warn("lock '{}' could not be given {} more in {}; this client releases it then: {}", lock.name(),
                        keep, provider.describe(), e.toString());
            }
        }
        events.emit(LockEvent.Type.RELEASED, lock.name(), lock.grant.fencingToken(), lock.grant.owner().holder(),
                System.nanoTime() - lock.acquiredAt, null);
        if (!storeKeepsIt) {
            guaranteedReleases.releaseAt(lock.grant, releaseAt);
        }
    }

    /** The last lease on {@code lock} was closed. */
    void lastLeaseClosed(HeldLock lock, HeldLock.State previous) {
        forget(lock);
        long heldNanos = System.nanoTime() - lock.acquiredAt;
        if (previous == HeldLock.State.HELD) {
            boolean removed;
            try {
                removed = releaseWithin(lock.grant);
            } catch (LockException e) {
                events.emit(LockEvent.Type.RELEASE_FAILED, lock.name(), lock.grant.fencingToken(),
                        lock.grant.owner().holder(), heldNanos, e);
                // Sent again until the store answers (owner-checked, so harmless if it did arrive). Without a TTL in
                // the store a release that never arrived would leave the lock for the whole session; with one, for the
                // rest of the lease: R9.15 on PostgreSQL saw a 75 s lease whose release met the server restarting keep
                // the lock from every waiter (1 CI run in about 10).
                guaranteedReleases.releaseNow(lock.grant);
                throw e;
            } finally {
                waitQueues.released(lock.name());
            }
            if (removed) {
                events.emit(LockEvent.Type.RELEASED, lock.name(), lock.grant.fencingToken(),
                        lock.grant.owner().holder(), heldNanos, null);
            } else {
                // The store had already lost it: the critical section may not have been exclusive. Say so.
                LOG.warn("lock '{}' (token {}) was no longer held in {} when released: it was lost during the work",
                        lock.name(), lock.grant.fencingToken(), provider.describe());
                reportLoss(lock, new LeaseLostEvent(lock.name(), lock.grant.fencingToken(), lock.grant.owner().holder(),
                        LossReason.TAKEN_AWAY, "found gone from the store at release", null), lock.drainCallbacks(), heldNanos);
            }
        } else if (previous == HeldLock.State.LOST && lastLossReason(lock) != LossReason.CLIENT_CLOSED) {
            // Lost on our side (deadline with a safety margin, session doubt): the store may still have it.
            // An owner-checked release is safe and frees it for the next holder sooner. In the background: closing
            // a lost lease is documented as making no blocking store call (the store may be why it was lost).
            if (guaranteedReleases.isPending(lock.grant) || !storeAppliesTtl) {
                // Its release at the TTL brought forward; or, in a store that applies no TTL, a release that must be
                // sent until the store answers it: the lock would otherwise stay for the whole session.
                guaranteedReleases.releaseNow(lock.grant);
            } else {
                storeCalls.runInBackground(lock.name(), "release of a lost lease", () -> releaseInStore(lock));
            }
        }
    }

    /**
     * Makes a clean-up call that must reach the store (dropping a finished wait's queue place, releasing an ambiguous or
     * late grant: owner-checked, so repeating it is harmless): tried within the clean-up grace, or in the background
     * while an outage is known. For a store that applies no TTL (etcd keys under the client's shared lease, ZooKeeper's
     * ephemeral nodes), a try that fails or outlives the grace is sent again until the store answers
     * ({@link GuaranteedReleases#cleanUpUntilAnswered}): such a store keeps a queue place or a grant for as long as the
     * client's session lives, and one left ahead in a fair queue would block the name for every client.
     *
     * @throws RuntimeException what the try within the grace threw (the retries are arranged first)
     */
    void cleanUp(String name, io.locksmith.spi.Owner owner, String what, Runnable providerCall) {
        if (outage.isKnown()) {
            if (storeAppliesTtl) {
                storeCalls.runInBackground(name, what, providerCall);
            } else {
                guaranteedReleases.cleanUpUntilAnswered(name, owner, what, providerCall);
            }
            return;
        }
        boolean answered;
        try {
            answered = storeCalls.runQuietlyWithin(name, what, providerCall, DefaultDistributedLock.CLEANUP_GRACE_NANOS);
        } catch (RuntimeException e) {
            if (!storeAppliesTtl) {
                guaranteedReleases.cleanUpUntilAnswered(name, owner, what, providerCall);
            }
            throw e;
        }
        if (!answered && !storeAppliesTtl) {
            guaranteedReleases.cleanUpUntilAnswered(name, owner, what, providerCall);
        }
    }

    private static LossReason lastLossReason(HeldLock lock) {
        LeaseLostEvent event = lock.lostEvent();
        return event == null ? null : event.reason();
    }

    private void releaseInStore(HeldLock lock) {
        try {
            provider.release(lock.grant);
        } catch (RuntimeException e) {
            LOG.debug("owner-checked release of lost lock '{}' failed; it runs out at its TTL", lock.name(), e);
        } finally {
            waitQueues.released(lock.name());
        }
    }

    /** Marks {@code lock} lost, once, and tells everyone who should know. */
    void lose(HeldLock lock, LossReason reason, String detail, Throwable cause) {
        LeaseLostEvent event = new LeaseLostEvent(lock.name(), lock.grant.fencingToken(), lock.grant.owner().holder(),
                reason, detail, cause);
        List<Consumer<LeaseLostEvent>> callbacks = lock.markLost(event);
        if (callbacks == null) {
            return;
        }
        keeper.remove(lock);
        reportLoss(lock, event, callbacks, System.nanoTime() - lock.acquiredAt);
        if (storeKeepsItPastTheLease(reason)) {
            // A store without a TTL of its own keeps the lock as long as the session, which a stuck holder (or one cut
            // off for less than the session timeout) keeps alive. The TTL is enforced here, after the holder was told
            // just above: at the TTL asked for, which a grant's shorter validity (etcd's shared lease) and the drift
            // allowance put after the holder's deadline; not before (R3.3). Never blocks: this may be a holder's
            // isHeld() call, which must stay local.
            guaranteedReleases.releaseAt(lock.grant, lock.ttlEndsAt);
        }
    }

    /**
     * Whether the store may still have a lock the client just counted out, and keeps it past its TTL: the lease ran
     * out locally (expired, over-held, renewals failing), on a store that applies no TTL. A lock the store lost
     * (session ended, taken away) is gone there; one lost to closing the client is released by close.
     */
    private boolean storeKeepsItPastTheLease(LossReason reason) {
        return !storeAppliesTtl && (reason == LossReason.EXPIRED || reason == LossReason.MAX_HOLD_EXCEEDED
                || reason == LossReason.STORE_UNREACHABLE);
    }

    private void reportLoss(HeldLock lock, LeaseLostEvent event, List<Consumer<LeaseLostEvent>> callbacks, long heldNanos) {
        if (event.reason() != LossReason.CLIENT_CLOSED) {
            LOG.warn("lease lost on lock '{}' (token {}, {}): {} - {}", event.lockName(), event.fencingToken(),
                    event.holder(), event.reason(), event.detail());
        }
        // A LockLostException, not the bare cause: listeners (metrics, logs) need the reason; the cause stays its cause.
        events.emit(LockEvent.Type.LOST, lock.name(), lock.grant.fencingToken(), lock.grant.owner().holder(),
                heldNanos, new LockLostException(event));
        for (Consumer<LeaseLostEvent> callback : callbacks) {
            runCallback(callback, event);
        }
        if (lock.options.lossAction() == LossAction.NOTIFY_AND_INTERRUPT_HOLDER
                && event.reason() != LossReason.CLIENT_CLOSED) {
            Thread working = lock.thread();
            if (working != null && working.isAlive()) {
                working.interrupt();
            }
        }
    }

    static void runCallback(Consumer<LeaseLostEvent> callback, LeaseLostEvent event) {
        try {
            callback.accept(event);
        } catch (RuntimeException e) {
            LOG.warn("lease-lost callback for lock '{}' failed", event.lockName(), e);
        }
    }

    private void providerReportedLoss(Grant grant, String reason, Throwable cause) {
        guaranteedReleases.storeLetGo(grant);
        HeldLock lock;
        synchronized (lossLock) {
            lock = byOwnerId.get(grant.owner().id());
            if (lock == null) {
                inFlight.computeIfPresent(grant.owner().id(),
                        (id, previous) -> new EarlyLoss(grant.fencingToken(), reason, cause));
                return;
            }
        }
        if (lock.grant.fencingToken() == grant.fencingToken() || grant.fencingToken() < 0) {
            lose(lock, LossReason.SESSION_LOST, reason, cause);
        }
    }

    private static void closeQuietly(LockProvider provider, RuntimeException primary) {
        try {
            provider.close();
        } catch (RuntimeException e) {
            primary.addSuppressed(e);
        }
    }

    private static String processName() {
        try {
            return ManagementFactory.getRuntimeMXBean().getName();
        } catch (RuntimeException | LinkageError e) {
            return "unknown";
        }
    }

    @Override
    public String toString() {
        return "LockClient[" + clientId + " on " + provider.describe() + "]";
    }
}
