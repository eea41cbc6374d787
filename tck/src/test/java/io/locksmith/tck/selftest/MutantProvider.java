package io.locksmith.tck.selftest;

import io.locksmith.HolderIdentity;
import io.locksmith.LockInfo;
import io.locksmith.mem.MemLockProviderFactory;
import io.locksmith.mem.MemStore;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;
import io.locksmith.spi.RenewRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@code mem://} provider with one {@link Mutant} bug: each method passes through to the real mem provider
 * except where the mutant changes it. Providers of one store share a {@link Shared} state, as the clients of
 * one server would share what the server keeps.
 */
final class MutantProvider implements LockProvider {

    private static final ScheduledExecutorService LATER = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "mutant-later");
        thread.setDaemon(true);
        return thread;
    });

    /** What the mutant's "server" keeps beside the mem store. */
    static final class Shared {
        final Map<String, Owner> owners = new ConcurrentHashMap<>();
        final Map<String, LockInfo> lastInfo = new ConcurrentHashMap<>();
        final Map<String, Long> counters = new ConcurrentHashMap<>();
        final Set<String> releasedCleanly = ConcurrentHashMap.newKeySet();
        final Map<String, List<Runnable>> listeners = new ConcurrentHashMap<>();
        final Map<String, Long> grantsSeen = new ConcurrentHashMap<>();
        /** The queueing mutants: the owner ids waiting for each name, in arrival order (the first is next). */
        final Map<String, java.util.Deque<String>> queues = new ConcurrentHashMap<>();
        /** NOTIFIES_BEFORE_IT_DELETES: the names whose release is under way (the store's own notice is muted). */
        final Set<String> releasing = ConcurrentHashMap.newKeySet();
        /**
         * NOTIFIES_BEFORE_IT_DELETES: per name whose release has notified and not yet deleted, a latch the next acquire
         * attempt on it opens once it was answered, so that the delete always comes after the woken waiter's attempt,
         * whatever the scheduling (a fixed 2 ms let a waiter that was slow to run find the lock free under load).
         */
        final Map<String, java.util.concurrent.CountDownLatch> attemptAfterNotice = new ConcurrentHashMap<>();
        /** UNSUBSCRIBE_ENDS_EVERY_SUBSCRIPTION: the store-side subscriptions of each name. */
        final Map<String, List<AutoCloseable>> subscriptions = new ConcurrentHashMap<>();
    }

    /** Serves {@code scheme} with mutant providers over the mem store {@code store}. */
    static LockProviderFactory factory(String scheme, String store, Mutant mutant, Shared shared) {
        MemLockProviderFactory mem = new MemLockProviderFactory();
        return new LockProviderFactory() {
            @Override
            public Set<String> schemes() {
                return Set.of(scheme);
            }

            @Override
            public LockProvider create(LockUri uri, ProviderContext context) {
                return new MutantProvider(mem.create(LockUri.parse("mem://" + store), context), MemStore.named(store),
                        mutant, shared, context);
            }
        };
    }

    private final LockProvider mem;
    private final ProviderContext context;
    private final MemStore store;
    private final Mutant mutant;
    private final Shared shared;
    private final Set<String> everLocked = ConcurrentHashMap.newKeySet();
    /** The session-bound mutants: the grants of this provider's session, by owner id. */
    private final Map<String, Grant> sessionGrants = new ConcurrentHashMap<>();
    private final ScheduledExecutorService pendingReleases;

    private MutantProvider(LockProvider mem, MemStore store, Mutant mutant, Shared shared, ProviderContext context) {
        this.mem = mem;
        this.context = context;
        this.store = store;
        this.mutant = mutant;
        this.shared = shared;
        this.pendingReleases = mutant == Mutant.CLOSE_DROPS_PENDING_RELEASES
                ? Executors.newSingleThreadScheduledExecutor() : null;
    }

    private String key(String name) {
        return mutant.key(name);
    }

    private void latency() {
        if (mutant == Mutant.LATENCY_ONLY) {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200 + ThreadLocalRandom.current().nextInt(1800)));
        }
    }

    @Override
    public Optional<Grant> tryAcquire(AcquireRequest request) {
        java.util.concurrent.CountDownLatch noticed = mutant == Mutant.NOTIFIES_BEFORE_IT_DELETES
                ? shared.attemptAfterNotice.get(key(request.name())) : null;
        try {
            return attempt(request);
        } finally {
            if (noticed != null) {
                noticed.countDown();
            }
        }
    }

    private Optional<Grant> attempt(AcquireRequest request) {
        latency();
        String name = request.name();
        String key = key(name);
        if (mutant == Mutant.REJECTS_NAMES_OVER_255 && name.length() > 255) {
            throw new IllegalArgumentException("names are limited to 255 characters");
        }
        if (mutant == Mutant.WAITERS_NEVER_GET_IT && request.willWait()) {
            return Optional.empty();
        }
        Owner owner = request.owner();
        if (mutant == Mutant.ONE_OWNER_ID_PER_CLIENT) {
            owner = new Owner(owner.holder().clientId(), owner.holder());
        } else if (mutant == Mutant.DROPS_THE_TRACE_ID) {
            HolderIdentity h = owner.holder();
            owner = new Owner(owner.id(), new HolderIdentity(h.clientId(), h.process(), h.thread(), h.threadId(), null));
        }
        Duration requested = request.ttl();
        Duration applied = switch (mutant) {
            case NO_TTL -> Duration.ofHours(1);
            case TTL_IN_WRONG_UNIT -> requested.dividedBy(20);
            case TTL_ROUNDED_DOWN_TO_SECONDS -> Duration.ofSeconds(Math.max(1, requested.toSeconds()));
            case CLOCK_200MS_EARLY -> max(Duration.ofMillis(1), requested.minusMillis(200));
            case TTL_ROUNDED_UP_SILENTLY -> Duration.ofSeconds(requested.toSeconds() + (requested.toMillisPart() > 0 ? 1 : 0));
            // An int of microseconds: fine up to 35 minutes, wraps beyond (a day becomes about 500 s).
            case TTL_IN_INT_MICROSECONDS -> Duration.ofNanos(1000L * (int) (requested.toNanos() / 1000));
            default -> requested;
        };
        if (mutant == Mutant.CHECK_THEN_SET && mem.inspect(key).isEmpty()) {
            // Checked free; another client may set it meanwhile; then set without NX.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            store.delete(key);
        }
        Optional<Grant> grant = queues() ? queuedTryAcquire(request, key, owner, applied)
                : mem.tryAcquire(new AcquireRequest(key, owner, applied, request.willWait()));
        if (grant.isEmpty()) {
            Optional<Grant> mutated = whenTaken(request, key, owner, applied);
            if (mutated.isEmpty()) {
                return Optional.empty();
            }
            grant = mutated;
        }
        Grant granted = grant.get();
        everLocked.add(key);
        if (mutant == Mutant.INSPECT_SHOWS_EXPIRED_LOCKS || mutant == Mutant.LISTING_SHOWS_EXPIRED_LOCKS) {
            shared.releasedCleanly.remove(key);
        }
        shared.owners.put(key, owner);
        long token = token(key, granted.fencingToken());
        Duration validity = switch (mutant) {
            case VALIDITY_LONGER_THAN_TTL -> requested.plusMillis(500);
            case FIXED_VALIDITY_TEN_TIMES_THE_TTL -> requested.multipliedBy(10);
            default -> requested;
        };
        mem.inspect(key).ifPresent(info -> shared.lastInfo.put(key, info));
        if (mutant == Mutant.EXPIRY_NOTICE_IGNORES_RENEWALS && !shared.listeners.getOrDefault(key, List.of()).isEmpty()) {
            expiryNoticeAtTheCurrentTtl(key);
        }
        Grant result = new Grant(name, owner, token, validity, granted.handle());
        if (capabilities().contains(Capability.SESSION_BOUND)) {
            sessionGrants.put(owner.id(), result);
        }
        return Optional.of(result);
    }

    /** Whether this mutant's store keeps a queue of waiters per name. */
    private boolean queues() {
        return mutant == Mutant.CANCEL_LEAVES_THE_QUEUE_PLACE || mutant == Mutant.NEWCOMERS_BARGE_AHEAD_OF_THE_QUEUE;
    }

    /**
     * A queueing store's acquire: a free lock goes to the first waiter queued for it, or to anybody when nobody is
     * queued; a waiter that does not get it is queued. NEWCOMERS_BARGE_AHEAD_OF_THE_QUEUE checks the queue for
     * waiters only, so a tryAcquire() that does not wait takes a free lock from under the queue.
     */
    private Optional<Grant> queuedTryAcquire(AcquireRequest request, String key, Owner owner, Duration ttl) {
        java.util.Deque<String> queue = shared.queues.computeIfAbsent(key, k -> new java.util.ArrayDeque<>());
        synchronized (queue) {
            boolean barges = mutant == Mutant.NEWCOMERS_BARGE_AHEAD_OF_THE_QUEUE && !request.willWait();
            Optional<Grant> grant = Optional.empty();
            if (queue.isEmpty() || queue.peekFirst().equals(owner.id()) || barges) {
                grant = mem.tryAcquire(new AcquireRequest(key, owner, ttl, request.willWait()));
            }
            if (grant.isPresent()) {
                queue.remove(owner.id());
            } else if (request.willWait() && !queue.contains(owner.id())) {
                queue.addLast(owner.id());
            }
            return grant;
        }
    }

    private void leaveTheQueue(String key, Owner owner) {
        java.util.Deque<String> queue = shared.queues.get(key);
        if (queue != null) {
            synchronized (queue) {
                queue.remove(owner.id());
            }
        }
    }

    /** What the mutant does when the store says the lock is taken. */
    private Optional<Grant> whenTaken(AcquireRequest request, String key, Owner owner, Duration ttl) {
        switch (mutant) {
            case DOUBLE_GRANT_ONE_IN_500, DOUBLE_GRANT_ONE_IN_1000 -> {
                int odds = mutant == Mutant.DOUBLE_GRANT_ONE_IN_500 ? 500 : 1000;
                if (ThreadLocalRandom.current().nextInt(odds) == 0) {
                    store.delete(key); // a SET without NX: the holder's lock is overwritten
                    return mem.tryAcquire(new AcquireRequest(key, owner, ttl, request.willWait()));
                }
                return Optional.empty();
            }
            case GRANTS_TO_ANY_THREAD_OF_THE_HOLDING_CLIENT -> {
                Optional<LockInfo> info = mem.inspect(key);
                if (info.isPresent() && info.get().holder().clientId().equals(owner.holder().clientId())) {
                    return Optional.of(new Grant(key, shared.owners.get(key), info.get().fencingToken(), ttl));
                }
                return Optional.empty();
            }
            case TRY_ACQUIRE_BLOCKS -> {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(60));
                return mem.tryAcquire(new AcquireRequest(key, owner, ttl, request.willWait()));
            }
            case WAIT_ATTEMPT_BLOCKS_FOR_SECONDS -> {
                if (request.willWait()) {
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(3));
                }
                return Optional.empty();
            }
            default -> {
                return Optional.empty();
            }
        }
    }

    private long token(String key, long memToken) {
        return switch (mutant) {
            case TOKEN_RESTARTS_PER_HOLDING -> 1;
            case TOKEN_RESTARTS_AFTER_EXPIRY -> {
                long next = shared.releasedCleanly.remove(key) || !shared.counters.containsKey(key)
                        ? shared.counters.getOrDefault(key, 0L) + 1 : 1;
                shared.counters.put(key, next);
                shared.grantsSeen.put(key + "#" + memToken, next);
                yield next;
            }
            case TOKENS_SHARED_BY_PAIRS -> memToken / 2;
            default -> memToken;
        };
    }

    private LockInfo shown(String key, LockInfo info) {
        long token = switch (mutant) {
            case TOKEN_RESTARTS_PER_HOLDING -> 1;
            case TOKEN_RESTARTS_AFTER_EXPIRY -> shared.grantsSeen.getOrDefault(key + "#" + info.fencingToken(), info.fencingToken());
            case TOKENS_SHARED_BY_PAIRS -> info.fencingToken() / 2;
            case INSPECT_TOKEN_OFF_BY_ONE -> info.fencingToken() + 1;
            default -> info.fencingToken();
        };
        HolderIdentity holder = info.holder();
        if (mutant == Mutant.INSPECT_LOSES_THE_THREAD) {
            holder = new HolderIdentity(holder.clientId(), holder.process(), "unknown", holder.threadId(), holder.traceId());
        }
        return new LockInfo(info.lockName(), holder, token, info.remaining(), info.waiters());
    }

    @Override
    public boolean renew(Grant grant, Duration ttl) {
        latency();
        String key = key(grant.name());
        Grant stored = new Grant(key, grant.owner(), grant.fencingToken(), grant.validity(), grant.handle());
        switch (mutant) {
            case RENEW_ALWAYS_TRUE -> {
                mem.renew(stored, ttl);
                return true;
            }
            case RENEW_DOES_NOT_EXTEND -> {
                return mem.inspect(key).isPresent();
            }
            case RENEW_WITHOUT_OWNER_CHECK -> {
                Owner current = shared.owners.get(key);
                return current != null && mem.renew(new Grant(key, current, grant.fencingToken(), grant.validity()), ttl);
            }
            case RENEW_BY_CLIENT_ID -> {
                Owner current = shared.owners.get(key);
                if (current != null && current.holder().clientId().equals(grant.owner().holder().clientId())) {
                    return mem.renew(new Grant(key, current, grant.fencingToken(), grant.validity()), ttl);
                }
                return mem.renew(stored, ttl);
            }
            case RENEW_ADDS_THE_TTL -> {
                Duration left = mem.inspect(key).flatMap(LockInfo::timeToLive).orElse(Duration.ZERO);
                return mem.renew(stored, left.plus(ttl));
            }
            case RENEW_SETS_THE_DEFAULT_LEASE -> {
                return mem.renew(stored, Duration.ofSeconds(30));
            }
            default -> {
                return mem.renew(stored, ttl);
            }
        }
    }

    @Override
    public List<Boolean> renewAll(List<RenewRequest> requests) {
        latency();
        List<Boolean> results = new ArrayList<>();
        for (RenewRequest request : requests) {
            Duration ttl = mutant == Mutant.BATCH_USES_THE_FIRST_TTL ? requests.get(0).ttl() : request.ttl();
            boolean renewed = renew(request.grant(), ttl);
            results.add(mutant == Mutant.BATCH_ALWAYS_TRUE || renewed);
        }
        if (mutant == Mutant.BATCH_ANSWERS_REVERSED) {
            Collections.reverse(results);
        }
        return results;
    }

    @Override
    public boolean release(Grant grant) {
        latency();
        String key = key(grant.name());
        Grant stored = new Grant(key, grant.owner(), grant.fencingToken(), grant.validity(), grant.handle());
        switch (mutant) {
            case RELEASE_WITHOUT_OWNER_CHECK -> {
                return store.delete(key);
            }
            case RELEASE_BY_CLIENT_ID -> {
                Optional<LockInfo> info = mem.inspect(key);
                if (info.isPresent() && info.get().holder().clientId().equals(grant.owner().holder().clientId())) {
                    return store.delete(key);
                }
                return false;
            }
            case RELEASE_ALWAYS_TRUE -> {
                mem.release(stored);
                return true;
            }
            case RELEASE_ANSWERS_FALSE -> {
                mem.release(stored);
                return false;
            }
            case RELEASE_FREES_LATER -> {
                boolean held = mem.inspect(key).map(info -> info.holder().equals(grant.owner().holder())).orElse(false);
                LATER.schedule(() -> mem.release(stored), 500, TimeUnit.MILLISECONDS);
                return held;
            }
            case NOTIFIES_BEFORE_IT_DELETES -> {
                // A PUBLISH, then the DEL as a second command one round trip later; the store's own notice of the
                // delete is not sent (the notifier publishes only what the provider sends).
                boolean ours = mem.inspect(key).map(info -> info.holder().equals(grant.owner().holder())).orElse(false);
                if (!ours) {
                    return mem.release(stored);
                }
                shared.releasing.add(key);
                java.util.concurrent.CountDownLatch noticed = new java.util.concurrent.CountDownLatch(1);
                shared.attemptAfterNotice.put(key, noticed);
                try {
                    shared.listeners.getOrDefault(key, List.of()).forEach(Runnable::run);
                    // The delete comes after the woken waiter's attempt (bounded: a waiter that never tries again).
                    noticed.await(2, TimeUnit.SECONDS);
                    return mem.release(stored);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return mem.release(stored);
                } finally {
                    shared.attemptAfterNotice.remove(key);
                    shared.releasing.remove(key);
                }
            }
            case CLOSE_DROPS_PENDING_RELEASES -> {
                if (grant.fencingToken() < 0) {
                    return mem.release(stored);
                }
                pendingReleases.schedule(() -> mem.release(stored), 50, TimeUnit.MILLISECONDS);
                return true;
            }
            default -> {
                boolean released = mem.release(stored);
                if (released) {
                    shared.releasedCleanly.add(key);
                    if (mutant == Mutant.NOTIFIES_ONLY_ON_RELEASE || mutant == Mutant.EXPIRY_NOTICE_IGNORES_RENEWALS) {
                        shared.listeners.getOrDefault(key, List.of()).forEach(Runnable::run);
                    }
                }
                return released;
            }
        }
    }

    @Override
    public void cancel(String name, Owner owner) {
        if (mutant != Mutant.CANCEL_LEAVES_THE_QUEUE_PLACE) {
            leaveTheQueue(key(name), owner);
            mem.cancel(key(name), owner);
        }
    }

    @Override
    public void releaseAmbiguous(String name, Owner owner) {
        if (mutant != Mutant.RELEASE_AMBIGUOUS_DOES_NOTHING) {
            if (mutant != Mutant.CANCEL_LEAVES_THE_QUEUE_PLACE) {
                // (The store of that mutant leaves a waiter's place behind whatever the client asks.)
                leaveTheQueue(key(name), owner);
            }
            mem.releaseAmbiguous(key(name), owner);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        latency();
        String key = key(name);
        Optional<LockInfo> info = mem.inspect(key);
        if (mutant == Mutant.INSPECT_CACHES_THE_HOLDER) {
            LockInfo cached = shared.lastInfo.get("cache:" + key);
            if (info.isPresent() && cached != null) {
                return Optional.of(new LockInfo(name, cached.holder(), info.get().fencingToken(), info.get().remaining(),
                        info.get().waiters()));
            }
            info.ifPresent(found -> shared.lastInfo.put("cache:" + key, found));
        }
        if (mutant == Mutant.INSPECT_SHOWS_EXPIRED_LOCKS && info.isEmpty() && !shared.releasedCleanly.contains(key)) {
            info = Optional.ofNullable(shared.lastInfo.get(key));
        }
        return info.map(found -> shown(key, new LockInfo(name, found.holder(), found.fencingToken(), found.remaining(),
                found.waiters())));
    }

    @Override
    public List<LockInfo> list(String prefix) {
        latency();
        List<LockInfo> listed = new ArrayList<>(mem.list(key(prefix)));
        if (mutant == Mutant.LISTING_SHOWS_EXPIRED_LOCKS) {
            // The listing reads the lock records without their expiry: a lock that expired unreleased stays listed.
            Set<String> shown = new java.util.HashSet<>();
            listed.forEach(info -> shown.add(info.lockName()));
            shared.lastInfo.forEach((key, info) -> {
                if (key.startsWith(key(prefix)) && !shown.contains(key) && !shared.releasedCleanly.contains(key)) {
                    listed.add(info);
                }
            });
            listed.sort(java.util.Comparator.comparing(LockInfo::lockName));
        }
        if (mutant == Mutant.LISTING_READS_ONE_PAGE && listed.size() > 10) {
            // One SCAN ... COUNT 10, and no call for the next page.
            return listed.subList(0, 10).stream().map(info -> shown(info.lockName(), info)).toList();
        }
        return listed.stream().map(info -> shown(info.lockName(), info)).toList();
    }

    @Override
    public Set<Capability> capabilities() {
        Set<Capability> capabilities = EnumSet.copyOf(mem.capabilities());
        if (mutant.name().startsWith("BATCH_")) {
            capabilities.add(Capability.BATCH_RENEW);
        }
        if (mutant == Mutant.SESSION_LOSS_NEVER_REPORTED || mutant == Mutant.SESSION_LOSS_REPORTED_AFTER_THE_STORE_FREES) {
            capabilities.add(Capability.SESSION_BOUND);
        }
        if (mutant == Mutant.NEWCOMERS_BARGE_AHEAD_OF_THE_QUEUE) {
            capabilities.add(Capability.FAIR);
        }
        if (mutant == Mutant.FORGETS_RELEASE_NOTIFICATION) {
            capabilities.remove(Capability.RELEASE_NOTIFICATION);
        }
        return capabilities;
    }

    @Override
    public Duration effectiveTtl(Duration requested) {
        if (mutant == Mutant.EFFECTIVE_TTL_ROUNDS_DOWN) {
            return Duration.ofSeconds(Math.max(1, requested.toSeconds()));
        }
        return mem.effectiveTtl(requested);
    }

    @Override
    public AutoCloseable subscribe(String name, Runnable onChange) {
        String key = key(name);
        switch (mutant) {
            case NEVER_NOTIFIES -> {
                return () -> { };
            }
            case NOTIFIES_ONCE_PER_SUBSCRIPTION -> {
                java.util.concurrent.atomic.AtomicBoolean fired = new java.util.concurrent.atomic.AtomicBoolean();
                return mem.subscribe(key, () -> {
                    if (fired.compareAndSet(false, true)) {
                        onChange.run();
                    }
                });
            }
            case NOTIFIES_ONLY_ON_RELEASE -> {
                List<Runnable> list = shared.listeners.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>());
                list.add(onChange);
                return () -> list.remove(onChange);
            }
            case EXPIRY_NOTICE_IGNORES_RENEWALS -> {
                List<Runnable> list = shared.listeners.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>());
                list.add(onChange);
                expiryNoticeAtTheCurrentTtl(key);
                return () -> list.remove(onChange);
            }
            case UNSUBSCRIBE_ENDS_EVERY_SUBSCRIPTION -> {
                List<AutoCloseable> handles = shared.subscriptions.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>());
                handles.add(mem.subscribe(key, onChange));
                return () -> {
                    for (AutoCloseable handle : handles) {
                        handle.close();
                    }
                    handles.clear();
                };
            }
            case NOTIFIES_ONLY_THE_FIRST_SUBSCRIBER -> {
                // One store-side listener per name in effect: each event reaches the earliest live subscription only.
                List<Runnable> list = shared.listeners.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>());
                list.add(onChange);
                AutoCloseable handle = mem.subscribe(key, () -> {
                    if (list.stream().findFirst().orElse(null) == onChange) {
                        onChange.run();
                    }
                });
                return () -> {
                    list.remove(onChange);
                    handle.close();
                };
            }
            case NOTIFIES_BEFORE_IT_DELETES -> {
                // Expiries are told by the store; releases by the provider's own early notice (release).
                List<Runnable> list = shared.listeners.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>());
                list.add(onChange);
                AutoCloseable handle = mem.subscribe(key, () -> {
                    if (!shared.releasing.contains(key)) {
                        onChange.run();
                    }
                });
                return () -> {
                    list.remove(onChange);
                    handle.close();
                };
            }
            case SUBSCRIPTION_NEVER_ENDS -> {
                mem.subscribe(key, onChange);
                return () -> { };
            }
            default -> {
                return mem.subscribe(key, onChange);
            }
        }
    }

    /** EXPIRY_NOTICE_IGNORES_RENEWALS: one look at the end of the TTL the lock has now; held then, nobody is told. */
    private void expiryNoticeAtTheCurrentTtl(String key) {
        mem.inspect(key).flatMap(LockInfo::timeToLive).ifPresent(ttl -> LATER.schedule(() -> {
            if (mem.inspect(key).isEmpty()) {
                shared.listeners.getOrDefault(key, List.of()).forEach(Runnable::run);
            }
        }, ttl.toNanos() + 1_000_000, TimeUnit.NANOSECONDS));
    }

    /**
     * The store ends this provider's session: its locks go. A correct session-bound provider would report each
     * grant to its LossListener now, before it grants anything again. SESSION_LOSS_NEVER_REPORTED tells nobody;
     * SESSION_LOSS_REPORTED_AFTER_THE_STORE_FREES tells each holder at its next heartbeat, 200 ms later, and grants
     * meanwhile.
     */
    void endSession() {
        for (Grant grant : sessionGrants.values()) {
            mem.release(new Grant(key(grant.name()), grant.owner(), grant.fencingToken(), grant.validity()));
            if (mutant == Mutant.SESSION_LOSS_REPORTED_AFTER_THE_STORE_FREES) {
                LATER.schedule(() -> context.lossListener().lost(grant, "the session ended (told at the next heartbeat)",
                        null), 200, TimeUnit.MILLISECONDS);
            }
        }
        sessionGrants.clear();
    }

    @Override
    public String describe() {
        if (mutant == Mutant.BLANK_DESCRIPTION) {
            return "";
        }
        return "mutant " + mutant + " over " + mem.describe();
    }

    @Override
    public void close() {
        if (pendingReleases != null) {
            pendingReleases.shutdownNow();
        }
        if (mutant == Mutant.CLOSE_DELETES_EVERY_NAME_IT_LOCKED) {
            everLocked.forEach(store::delete);
        }
        mem.close();
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
