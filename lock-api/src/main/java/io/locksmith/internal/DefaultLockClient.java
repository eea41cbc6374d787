package io.locksmith.internal;

import io.locksmith.DistributedLock;
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
import io.locksmith.spi.Capability;
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

    private final String clientId;
    private final LockProvider provider;
    private final Set<Capability> capabilities;
    private final LockOptions defaultOptions;
    private final Supplier<String> traceIdSupplier;
    private final Events events;
    final WaitQueues waitQueues;
    final LeaseKeeper keeper;
    final long maxPollNanos;
    private final AtomicLong ownerSequence = new AtomicLong();
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
    private final Object lossLock = new Object();

    /** A loss reported before its grant was registered. */
    private record EarlyLoss(long fencingToken, String reason, Throwable cause) {
    }

    private static final EarlyLoss NO_LOSS = new EarlyLoss(Long.MIN_VALUE, null, null);

    record ReentryKey(String name, Thread thread) {
    }

    private DefaultLockClient(ClientBuilder builder, LockProvider provider, LockOptions defaultOptions, String store) {
        this.clientId = builder.clientId;
        this.provider = provider;
        Set<Capability> declared = provider.capabilities();
        this.capabilities = declared.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(declared));
        this.defaultOptions = defaultOptions;
        this.traceIdSupplier = builder.traceIdSupplier;
        this.events = new Events(builder.listeners, store);
        this.maxPollNanos = builder.maxPollInterval.toNanos();
        this.waitQueues = new WaitQueues(provider, capabilities.contains(Capability.RELEASE_NOTIFICATION),
                capabilities.contains(Capability.FAIR));
        this.keeper = new LeaseKeeper(this, provider, events, "locksmith-leases-" + clientId.substring(0, Math.min(8, clientId.length())));
    }

    static LockClient open(ClientBuilder builder) {
        LockUri uri = LockUri.parse(builder.uri);
        LockOptions fromUri = lockOptionsFrom(uri);
        LockProviderFactory factory = builder.factory != null
                ? builder.factory
                : ProviderRegistry.forScheme(uri.scheme(), uri.toString());
        if (builder.factory != null && !factory.schemes().contains(uri.scheme())) {
            throw new LockConfigurationException("the given factory serves " + factory.schemes()
                    + ", not the scheme '" + uri.scheme() + "' of '" + uri + "'");
        }
        // The provider reports losses to the client, which does not exist yet: go through a holder.
        LossRelay relay = new LossRelay();
        LockProvider provider = factory.create(uri, new ProviderContext(builder.clientId, relay));
        try {
            Set<String> unread = uri.unreadParameters();
            if (!unread.isEmpty()) {
                throw new LockConfigurationException("unknown parameter" + (unread.size() > 1 ? "s " : " ") + unread
                        + " in '" + uri + "'; known: " + uri.readParameters());
            }
            LockOptions defaults = builder.defaultLockOptions != null ? builder.defaultLockOptions : fromUri;
            DefaultLockClient client = new DefaultLockClient(builder, provider, defaults, uri.scheme());
            client.checkTtl(defaults.leaseTime(), null);
            relay.client = client;
            LOG.debug("lock client {} opened on {}", client.clientId, provider.describe());
            return client;
        } catch (RuntimeException e) {
            closeQuietly(provider, e);
            throw e;
        }
    }

    private static LockOptions lockOptionsFrom(LockUri uri) {
        LockOptions.Builder options = LockOptions.builder();
        Duration lease = uri.duration(PARAM_LEASE, LockOptions.DEFAULT_LEASE_TIME);
        options.leaseTime(lease);
        if (!uri.bool(PARAM_RENEW, true)) {
            options.fixedLease();
        }
        Optional<String> maxHold = uri.parameter(PARAM_MAX_HOLD);
        if (maxHold.isPresent() && maxHold.get().equalsIgnoreCase("none")) {
            options.unboundedHold();
        } else if (maxHold.isPresent()) {
            options.maxHold(uri.duration(PARAM_MAX_HOLD, null));
        } else if (lease.compareTo(LockOptions.DEFAULT_MAX_HOLD) > 0) {
            options.maxHold(lease);
        }
        try {
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

    private Duration checkTtl(Duration requested, String name) {
        try {
            return provider.effectiveTtl(requested);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException((name == null ? "" : "lock '" + name + "': ") + e.getMessage(), e);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        LockNames.validate(name);
        ensureOpen();
        return provider.inspect(name);
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
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        waitQueues.wakeEveryone();
        List<HeldLock> stillHeld = new ArrayList<>(keeper.held());
        RuntimeException failure = null;
        for (HeldLock lock : stillHeld) {
            lose(lock, LossReason.CLIENT_CLOSED, "the lock client was closed while the lease was held", null);
            try {
                provider.release(lock.grant);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        keeper.close();
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
        Thread thread = Thread.currentThread();
        HolderIdentity holder = new HolderIdentity(clientId, PROCESS, thread.getName(), thread.getId(), traceId);
        return new io.locksmith.spi.Owner(clientId + ":" + ownerSequence.incrementAndGet(), holder);
    }

    HeldLock reentrantHold(String name) {
        return reentry.get(new ReentryKey(name, Thread.currentThread()));
    }

    /** An acquire for {@code owner} starts: keep provider loss reports that arrive before its grant is registered. */
    void acquiring(io.locksmith.spi.Owner owner) {
        inFlight.put(owner.id(), NO_LOSS);
    }

    /** The acquire for {@code owner} ended, granted or not. */
    void acquireEnded(io.locksmith.spi.Owner owner) {
        inFlight.remove(owner.id());
    }

    void registerHeld(HeldLock lock) {
        reentry.put(new ReentryKey(lock.name(), lock.acquiringThread), lock);
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
        reentry.remove(new ReentryKey(lock.name(), lock.acquiringThread), lock);
        byOwnerId.remove(lock.grant.owner().id(), lock);
        keeper.remove(lock);
    }

    /** The last lease on {@code lock} was closed. */
    void lastLeaseClosed(HeldLock lock, HeldLock.State previous) {
        forget(lock);
        long heldNanos = System.nanoTime() - lock.acquiredAt;
        if (previous == HeldLock.State.HELD) {
            boolean removed;
            try {
                removed = provider.release(lock.grant);
            } catch (LockException e) {
                events.emit(LockEvent.Type.RELEASE_FAILED, lock.name(), lock.grant.fencingToken(),
                        lock.grant.owner().holder(), heldNanos, e);
                if (capabilities.contains(Capability.SESSION_BOUND)) {
                    // No TTL in the store: a release that never arrived would leave the lock for the whole session.
                    keeper.runSoon(() -> releaseInStore(lock));
                }
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
            // An owner-checked release is safe and frees it for the next holder sooner.
            releaseInStore(lock);
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
        if (storeKeepsItPastTheDeadline(reason)) {
            // A session-bound store has no TTL of its own: the lock lives as long as the session, which a stuck
            // holder keeps alive. The lease time and the maximum hold are enforced here, by an owner-checked
            // release, on the renewal thread (this may be a holder's isHeld() call, which must stay local).
            keeper.runSoon(() -> releaseInStore(lock));
        }
    }

    private boolean storeKeepsItPastTheDeadline(LossReason reason) {
        return capabilities.contains(Capability.SESSION_BOUND)
                && (reason == LossReason.EXPIRED || reason == LossReason.MAX_HOLD_EXCEEDED);
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
                && event.reason() != LossReason.CLIENT_CLOSED && lock.acquiringThread.isAlive()) {
            lock.acquiringThread.interrupt();
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
