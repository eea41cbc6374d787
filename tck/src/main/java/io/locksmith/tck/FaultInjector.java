package io.locksmith.tck;

import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;
import io.locksmith.spi.Registry;
import io.locksmith.spi.RenewRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A fault injector at the SPI: wraps the provider under test so that a chosen call fails the way a network
 * makes it fail, with no network. {@link Moment#AFTER_EFFECT} lets the call reach the store and take effect,
 * then throws {@link LockStoreException} (the reply was lost); {@link Moment#BEFORE_EFFECT} throws without
 * calling the store (the request was lost). The shared client cannot tell the two apart, which is the point:
 * it must leave neither an orphan lock nor a holder that believes a lock it does not have.
 * <pre>{@code
 * FaultInjector faults = new FaultInjector();
 * LockClient client = ProviderClientBuilder.create().uri(uri).factory(faults.wrap(factory)).build();
 * faults.failNext(FaultInjector.Call.TRY_ACQUIRE, FaultInjector.Moment.AFTER_EFFECT);
 * client.lock("x").tryAcquire();        // throws LockStoreException; the lock must not stay taken
 * }</pre>
 *
 * <p>It also records every grant the wrapped providers handed out, so that a rule can call the provider
 * directly ({@link #provider()}) with real grants, and every loss they reported ({@link #lossReportedAt(Grant)}).
 * Thread-safe.
 */
public final class FaultInjector {

    /** The SPI calls a fault can be injected into ({@code RENEW} also strikes a {@code renewAll}). */
    public enum Call { TRY_ACQUIRE, RENEW, RENEW_ALL, RELEASE, RELEASE_AMBIGUOUS, CANCEL, INSPECT }

    /** Whether the failing call reached the store before it failed. */
    public enum Moment {
        /** The request is lost: the store never sees it. */
        BEFORE_EFFECT,
        /** The reply is lost: the store acted, the caller gets an error. */
        AFTER_EFFECT
    }

    private final Map<Call, ConcurrentLinkedQueue<Moment>> pending = new EnumMap<>(Call.class);
    private final ConcurrentLinkedQueue<Grant> grants = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<ReportedLoss> lossesReported = new ConcurrentLinkedQueue<>();
    private final List<LockProvider> providers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger injected = new java.util.concurrent.atomic.AtomicInteger();
    private final List<LockProvider> storeProviders = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Guards the waiting-attempt gate and its counters. */
    private final Object gate = new Object();
    private boolean waitingAttemptsHeld;
    private long waitingAttemptsArrived;
    private long waitingAttemptsDone;
    /** Waiting attempts that passed the gate and are at the store now. */
    private long waitingAttemptsAtStore;
    private long lastWaitingAttemptAt;

    public FaultInjector() {
        for (Call call : Call.values()) {
            pending.put(call, new ConcurrentLinkedQueue<>());
        }
    }

    /** The next call of that kind, on any provider this injector wrapped, fails at {@code moment}. */
    public FaultInjector failNext(Call call, Moment moment) {
        pending.get(Objects.requireNonNull(call, "call cannot be null")).add(Objects.requireNonNull(moment, "moment cannot be null"));
        return this;
    }

    /** How many faults were injected so far. */
    public int injected() {
        return injected.get();
    }

    /** Whether a fault asked for with {@link #failNext} has not struck yet. */
    public boolean hasPending() {
        return pending.values().stream().anyMatch(queue -> !queue.isEmpty());
    }

    /** Every grant the wrapped providers returned, oldest first. */
    public List<Grant> grants() {
        return new ArrayList<>(grants);
    }

    /** The last grant returned for {@code name}. */
    public Optional<Grant> lastGrant(String name) {
        Grant last = null;
        for (Grant grant : grants) {
            if (grant.name().equals(name)) {
                last = grant;
            }
        }
        return Optional.ofNullable(last);
    }

    /**
     * When ({@link System#nanoTime()}) a wrapped provider reported {@code grant} lost through its
     * {@link ProviderContext#lossListener()}, the first time; empty if it did not (yet).
     */
    public Optional<Long> lossReportedAt(Grant grant) {
        Objects.requireNonNull(grant, "grant cannot be null");
        for (ReportedLoss loss : lossesReported) {
            if (loss.ownerId().equals(grant.owner().id()) && loss.token() == grant.fencingToken()) {
                return Optional.of(loss.at());
            }
        }
        return Optional.empty();
    }

    /** A loss a wrapped provider reported: the grant's owner id and token, and when. */
    private record ReportedLoss(String ownerId, long token, long at) {
    }

    /** The most recently created wrapped provider. */
    public LockProvider provider() {
        if (providers.isEmpty()) {
            throw new IllegalStateException("no provider was created through this injector yet");
        }
        return providers.get(providers.size() - 1);
    }

    /**
     * The store's own provider behind {@link #provider()} (the most recently created one, unwrapped): for hooks
     * that act on the store's session or connection, such as {@code LockTck.endStoreSession}.
     */
    public LockProvider storeProvider() {
        if (storeProviders.isEmpty()) {
            throw new IllegalStateException("no provider was created through this injector yet");
        }
        return storeProviders.get(storeProviders.size() - 1);
    }

    /**
     * From now on, every waiting acquire attempt ({@link AcquireRequest#willWait()}) of the wrapped providers stops
     * before it reaches the store, until {@link #resumeWaitingAttempts()} (or 10 seconds at most, so that a rule
     * that fails cannot hang a waiter). Its arrival is still counted and timed: a rule can see that a waiter was
     * woken, and take the lock back before the waiter can win it.
     */
    public void holdWaitingAttempts() {
        synchronized (gate) {
            waitingAttemptsHeld = true;
        }
    }

    /** Lets the held waiting attempts, and later ones, go on to the store. */
    public void resumeWaitingAttempts() {
        synchronized (gate) {
            waitingAttemptsHeld = false;
            gate.notifyAll();
        }
    }

    /** How many waiting acquire attempts reached the wrapped providers so far (held ones included). */
    public long waitingAttemptsArrived() {
        synchronized (gate) {
            return waitingAttemptsArrived;
        }
    }

    /** Whether no waiting acquire attempt is under way in the wrapped providers (none held, none at the store). */
    public boolean noWaitingAttemptInFlight() {
        synchronized (gate) {
            return waitingAttemptsArrived == waitingAttemptsDone;
        }
    }

    /**
     * Whether no waiting acquire attempt is at the store now (held ones do not count): after {@link
     * #holdWaitingAttempts()}, once this is true, no attempt of a waiter can reach the store until the rule resumes
     * them (an attempt that passed the gate just before the hold, a poll, would otherwise race the rule's holder).
     */
    public boolean noWaitingAttemptAtTheStore() {
        synchronized (gate) {
            return waitingAttemptsAtStore == 0;
        }
    }

    /** When ({@link System#nanoTime()}) the last waiting acquire attempt reached the wrapped providers; 0 if none. */
    public long lastWaitingAttemptAt() {
        synchronized (gate) {
            return lastWaitingAttemptAt;
        }
    }

    private void arriveWaiting(String name) {
        long now = System.nanoTime();
        synchronized (gate) {
            waitingAttemptsArrived++;
            lastWaitingAttemptAt = now;
            long until = now + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            boolean interrupted = false;
            while (waitingAttemptsHeld && until - System.nanoTime() > 0) {
                try {
                    java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(gate, until - System.nanoTime());
                } catch (InterruptedException e) {
                    interrupted = true;
                    break;
                }
            }
            if (interrupted) {
                waitingAttemptsDone++;
                Thread.currentThread().interrupt();
                throw new LockStoreException(name, "interrupted while the kit held a waiting attempt", null);
            }
            waitingAttemptsAtStore++;
        }
    }

    private void leaveWaiting() {
        synchronized (gate) {
            waitingAttemptsDone++;
            waitingAttemptsAtStore--;
        }
    }

    /** A factory whose providers are {@code factory}'s, wrapped by this injector. */
    public LockProviderFactory wrap(LockProviderFactory factory) {
        Objects.requireNonNull(factory, "factory cannot be null");
        return new LockProviderFactory() {
            @Override
            public Set<String> schemes() {
                return factory.schemes();
            }

            @Override
            public boolean validate(LockUri uri) {
                return factory.validate(uri);
            }

            @Override
            public LockProvider create(LockUri uri, ProviderContext context) {
                // The provider's own loss reports are recorded on their way to the client, with their time.
                LockProvider store = factory.create(uri, new ProviderContext(context.clientId(), (grant, reason, cause) -> {
                    lossesReported.add(new ReportedLoss(grant.owner().id(), grant.fencingToken(), System.nanoTime()));
                    context.lossListener().lost(grant, reason, cause);
                }));
                LockProvider wrapped = wrap(store);
                storeProviders.add(store);
                providers.add(wrapped);
                return wrapped;
            }
        };
    }

    /** {@code provider}, with this injector's faults. */
    public LockProvider wrap(LockProvider provider) {
        return new Injecting(Objects.requireNonNull(provider, "provider cannot be null"));
    }

    private Moment strikes(Call call) {
        Moment moment = pending.get(call).poll();
        if (moment != null) {
            injected.incrementAndGet();
        }
        return moment;
    }

    private static LockStoreException lost(Call call, Moment moment, String name, String store) {
        return new LockStoreException(name, "injected fault: the " + (moment == Moment.AFTER_EFFECT ? "reply to" : "request of")
                + " " + call + " on " + store + " was lost", null);
    }

    private final class Injecting implements LockProvider {
        private final LockProvider delegate;

        Injecting(LockProvider delegate) {
            this.delegate = delegate;
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            if (!request.willWait()) {
                return tryAcquireNow(request);
            }
            arriveWaiting(request.name());
            try {
                return tryAcquireNow(request);
            } finally {
                leaveWaiting();
            }
        }

        private Optional<Grant> tryAcquireNow(AcquireRequest request) {
            Moment moment = strikes(Call.TRY_ACQUIRE);
            if (moment == Moment.BEFORE_EFFECT) {
                throw lost(Call.TRY_ACQUIRE, moment, request.name(), delegate.describe());
            }
            Optional<Grant> grant = delegate.tryAcquire(request);
            grant.ifPresent(grants::add);
            if (moment == Moment.AFTER_EFFECT) {
                throw lost(Call.TRY_ACQUIRE, moment, request.name(), delegate.describe());
            }
            return grant;
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            Moment moment = strikes(Call.RENEW);
            if (moment == Moment.BEFORE_EFFECT) {
                throw lost(Call.RENEW, moment, grant.name(), delegate.describe());
            }
            boolean renewed = delegate.renew(grant, ttl);
            if (moment == Moment.AFTER_EFFECT) {
                throw lost(Call.RENEW, moment, grant.name(), delegate.describe());
            }
            return renewed;
        }

        @Override
        public List<Boolean> renewAll(List<RenewRequest> requests) {
            // The shared client may renew in batches: a RENEW fault strikes a batch renewal too.
            Moment moment = strikes(Call.RENEW_ALL);
            if (moment == null) {
                moment = strikes(Call.RENEW);
            }
            String name = requests.isEmpty() ? null : requests.get(0).grant().name();
            if (moment == Moment.BEFORE_EFFECT) {
                throw lost(Call.RENEW_ALL, moment, name, delegate.describe());
            }
            List<Boolean> results = delegate.renewAll(requests);
            if (moment == Moment.AFTER_EFFECT) {
                throw lost(Call.RENEW_ALL, moment, name, delegate.describe());
            }
            return results;
        }

        @Override
        public boolean release(Grant grant) {
            Moment moment = strikes(Call.RELEASE);
            if (moment == Moment.BEFORE_EFFECT) {
                throw lost(Call.RELEASE, moment, grant.name(), delegate.describe());
            }
            boolean released = delegate.release(grant);
            if (moment == Moment.AFTER_EFFECT) {
                throw lost(Call.RELEASE, moment, grant.name(), delegate.describe());
            }
            return released;
        }

        @Override
        public void releaseAmbiguous(String name, Owner owner) {
            Moment moment = strikes(Call.RELEASE_AMBIGUOUS);
            if (moment == Moment.BEFORE_EFFECT) {
                throw lost(Call.RELEASE_AMBIGUOUS, moment, name, delegate.describe());
            }
            delegate.releaseAmbiguous(name, owner);
            if (moment == Moment.AFTER_EFFECT) {
                throw lost(Call.RELEASE_AMBIGUOUS, moment, name, delegate.describe());
            }
        }

        @Override
        public void cancel(String name, Owner owner) {
            Moment moment = strikes(Call.CANCEL);
            if (moment == Moment.BEFORE_EFFECT) {
                throw lost(Call.CANCEL, moment, name, delegate.describe());
            }
            delegate.cancel(name, owner);
            if (moment == Moment.AFTER_EFFECT) {
                throw lost(Call.CANCEL, moment, name, delegate.describe());
            }
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            Moment moment = strikes(Call.INSPECT);
            if (moment != null) {
                throw lost(Call.INSPECT, moment, name, delegate.describe());
            }
            return delegate.inspect(name);
        }

        @Override
        public Set<Capability> capabilities() {
            return delegate.capabilities();
        }

        @Override
        public Duration effectiveTtl(Duration requested) {
            return delegate.effectiveTtl(requested);
        }

        // The store's own minimum lease: without it the client of a wrapped provider used the SPI default (20 ms)
        // instead of the store's (etcd: whole seconds, at least its minimum grant).
        @Override
        public Duration minimumTtl() {
            return delegate.minimumTtl();
        }

        @Override
        public Duration commandTimeout() {
            return delegate.commandTimeout();
        }

        // Whether the shared client must release a lock whose lease ran out: the store's answer, not the default
        // derived from the capabilities (a migrating provider over a session-bound and a TTL store answers false).
        @Override
        public boolean appliesTtl() {
            return delegate.appliesTtl();
        }

        @Override
        public AutoCloseable subscribe(String name, Runnable onChange) {
            return delegate.subscribe(name, onChange);
        }

        @Override
        public Optional<Registry> registry() {
            return delegate.registry();
        }

        @Override
        public String describe() {
            return delegate.describe();
        }

        @Override
        public void close() {
            delegate.close();
        }

        @Override
        public String toString() {
            return "FaultInjector[" + delegate.describe() + "]";
        }
    }
}
