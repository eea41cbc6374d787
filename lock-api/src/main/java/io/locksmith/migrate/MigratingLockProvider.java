package io.locksmith.migrate;

import io.locksmith.LockConfigurationException;
import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LossListener;
import io.locksmith.spi.Owner;
import io.locksmith.spi.RenewRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A provider over two stores, for moving locks from one to the other by configuration (see
 * {@code docs/MIGRATION.md}).
 *
 * <h2>Fencing across the phases</h2>
 * Tokens must keep increasing for a name while the fleet moves from the old store to the new one.
 * Old-store tokens are used as they are; new-store tokens are offset by {@link #NEW_STORE_EPOCH}, so each
 * is above every old-store token. Phase {@code from} uses old tokens and phase {@code to} new ones. A
 * {@code dual} client holds both locks and must agree with both neighbours: with {@code from} clients,
 * which only see the old store, it must use old tokens; with {@code to} clients, which only see the new
 * store, new ones. The two neighbours never run together (the phase guard), and the switch is recorded in
 * the new store: the first {@code to} client writes a marker before its first acquire, and a {@code dual}
 * client reads it after taking the new store's lock. If a {@code to} client held the lock before, its
 * marker was written before that, so the dual client sees it and uses a new-store token, above the
 * {@code to} client's. Once seen, the marker is remembered: tokens never go back to the old store's.
 */
final class MigratingLockProvider implements LockProvider {

    /**
     * Added to new-store tokens: above any old-store token (2^56, about 7.2e16: Redis tokens are server
     * microseconds, about 1.8e15 today; etcd revisions and ZooKeeper zxids are far smaller).
     */
    static final long NEW_STORE_EPOCH = 1L << 56;

    private final MigrationPhase phase;
    private final LockProvider from;
    private final LockProvider to;
    private final LossListener lossListener;
    private final PhaseGuard guard;
    private volatile boolean newStoreTokens;
    /** Composite grants by owner id, so a store's loss report maps to the lease the client knows. */
    private final Map<String, Grant> heldByOwner = new ConcurrentHashMap<>();

    /** The two store grants behind a dual-phase grant. */
    record DualHandle(Grant old, Grant fresh) {
    }

    MigratingLockProvider(MigrationPhase phase, LockProvider from, LockProvider to, LossListener lossListener,
                          PhaseGuard guard) {
        this.phase = phase;
        this.from = from;
        this.to = to;
        this.lossListener = lossListener;
        this.guard = guard;
        // Phase to writes its marker before its first acquire, not here: opening a client (lockctl inspect, a
        // client that never locks) must not change migration state, which a rollback would then have to undo.
        if (phase == MigrationPhase.DUAL) {
            newStoreTokens = markerPresent();
        }
    }

    /** Phase to: the new-store-tokens marker is in the new store before this client's first acquire. */
    private void markNewStoreTokensOnce() {
        if (newStoreTokens) {
            return;
        }
        synchronized (this) {
            if (!newStoreTokens) {
                to.registry().orElseThrow().put(PhaseGuard.NEW_TOKENS_MARKER, "set by a client in phase to", null);
                newStoreTokens = true;
            }
        }
    }

    private boolean markerPresent() {
        return to.registry().orElseThrow().list(PhaseGuard.NEW_TOKENS_MARKER).containsKey(PhaseGuard.NEW_TOKENS_MARKER);
    }

    /** Called by the child stores when they lose a lock on their own. */
    void childLost(Grant childGrant, String reason, Throwable cause) {
        Grant composite = heldByOwner.get(childGrant.owner().id());
        if (composite != null) {
            lossListener.lost(composite, reason, cause);
        }
    }

    @Override
    public Optional<Grant> tryAcquire(AcquireRequest request) {
        if (guard.isObserver()) {
            throw new LockConfigurationException("lock '" + request.name() + "': this client was opened to observe the"
                    + " migration (Migration.observer(), as lockctl inspect does): it announces no phase, so it must"
                    + " not take locks; open the migrate: URI with LockClient.open to lock");
        }
        return switch (phase) {
            case FROM -> from.tryAcquire(request).map(g -> remember(rewrap(g, g.fencingToken(), g)));
            case TO -> {
                markNewStoreTokensOnce();
                yield to.tryAcquire(request).map(g -> remember(rewrap(g, NEW_STORE_EPOCH + g.fencingToken(), g)));
            }
            case DUAL -> tryAcquireBoth(request);
        };
    }

    private Optional<Grant> tryAcquireBoth(AcquireRequest request) {
        Optional<Grant> old = from.tryAcquire(request);
        if (old.isEmpty()) {
            return Optional.empty();
        }
        Optional<Grant> fresh;
        try {
            // One attempt, no queue place in the new store: in a queueing store (etcd, ZooKeeper) the first
            // place in the queue IS the lock, and a dual client that is not holding the old lock meanwhile
            // must not hold up the clients of phase to behind it.
            fresh = to.tryAcquire(new AcquireRequest(request.name(), request.owner(), request.ttl(), false));
        } catch (RuntimeException e) {
            releaseQuietly(from, old.get(), e);
            throw e;
        }
        if (fresh.isEmpty()) {
            // Do not sit on the old lock while a new-store holder (a client in phase to) has the name.
            from.release(old.get());
            return Optional.empty();
        }
        if (!newStoreTokens && markerPresent()) {
            newStoreTokens = true;
        }
        long token = newStoreTokens ? NEW_STORE_EPOCH + fresh.get().fencingToken() : old.get().fencingToken();
        Duration validity = min(old.get().validity(), fresh.get().validity());
        Grant grant = new Grant(request.name(), request.owner(), token, validity, new DualHandle(old.get(), fresh.get()));
        return Optional.of(remember(grant));
    }

    private static Grant rewrap(Grant child, long token, Grant handle) {
        return new Grant(child.name(), child.owner(), token, child.validity(), handle);
    }

    private Grant remember(Grant grant) {
        heldByOwner.put(grant.owner().id(), grant);
        return grant;
    }

    private static Grant single(Grant grant) {
        return (Grant) grant.handle();
    }

    @Override
    public boolean renew(Grant grant, Duration ttl) {
        return switch (phase) {
            case FROM -> from.renew(single(grant), ttl);
            case TO -> to.renew(single(grant), ttl);
            case DUAL -> {
                DualHandle both = (DualHandle) grant.handle();
                boolean freshHeld = to.renew(both.fresh(), ttl);
                boolean oldHeld = from.renew(both.old(), ttl);
                yield freshHeld && oldHeld;
            }
        };
    }

    @Override
    public List<Boolean> renewAll(List<RenewRequest> requests) {
        if (phase == MigrationPhase.DUAL) {
            List<RenewRequest> olds = new ArrayList<>(requests.size());
            List<RenewRequest> freshes = new ArrayList<>(requests.size());
            for (RenewRequest request : requests) {
                DualHandle both = (DualHandle) request.grant().handle();
                olds.add(new RenewRequest(both.old(), request.ttl()));
                freshes.add(new RenewRequest(both.fresh(), request.ttl()));
            }
            List<Boolean> freshResults = to.renewAll(freshes);
            List<Boolean> oldResults = from.renewAll(olds);
            List<Boolean> results = new ArrayList<>(requests.size());
            for (int i = 0; i < requests.size(); i++) {
                results.add(freshResults.get(i) && oldResults.get(i));
            }
            return results;
        }
        LockProvider store = phase == MigrationPhase.FROM ? from : to;
        List<RenewRequest> unwrapped = new ArrayList<>(requests.size());
        for (RenewRequest request : requests) {
            unwrapped.add(new RenewRequest(single(request.grant()), request.ttl()));
        }
        return store.renewAll(unwrapped);
    }

    @Override
    public boolean release(Grant grant) {
        heldByOwner.remove(grant.owner().id());
        if (!(grant.handle() instanceof DualHandle) && !(grant.handle() instanceof Grant)) {
            // An ambiguous-release grant made by the client: release by owner in every store used.
            releaseAmbiguous(grant.name(), grant.owner());
            return false;
        }
        return switch (phase) {
            case FROM -> from.release(single(grant));
            case TO -> to.release(single(grant));
            case DUAL -> {
                DualHandle both = (DualHandle) grant.handle();
                boolean freshReleased;
                try {
                    freshReleased = to.release(both.fresh());
                } catch (RuntimeException e) {
                    releaseQuietly(from, both.old(), e);
                    throw e;
                }
                boolean oldReleased = from.release(both.old());
                yield freshReleased && oldReleased;
            }
        };
    }

    @Override
    public void releaseAmbiguous(String name, Owner owner) {
        heldByOwner.remove(owner.id());
        RuntimeException failure = null;
        if (phase != MigrationPhase.FROM) {
            try {
                to.releaseAmbiguous(name, owner);
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        if (phase != MigrationPhase.TO) {
            try {
                from.releaseAmbiguous(name, owner);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void cancel(String name, Owner owner) {
        if (phase != MigrationPhase.FROM) {
            to.cancel(name, owner);
        }
        if (phase != MigrationPhase.TO) {
            from.cancel(name, owner);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        // Report the token the holder's lease carries: old-store tokens until the new-store marker exists.
        if (phase == MigrationPhase.FROM || (phase == MigrationPhase.DUAL && !newStoreTokens && !markerPresent())) {
            return from.inspect(name);
        }
        return to.inspect(name).map(info -> new LockInfo(info.lockName(), info.holder(),
                NEW_STORE_EPOCH + info.fencingToken(), info.remaining(), info.waiters()));
    }

    @Override
    public Set<Capability> capabilities() {
        Set<Capability> result = EnumSet.noneOf(Capability.class);
        Set<Capability> old = phase == MigrationPhase.TO ? to.capabilities() : from.capabilities();
        Set<Capability> fresh = phase == MigrationPhase.FROM ? from.capabilities() : to.capabilities();
        for (Capability capability : Capability.values()) {
            boolean either = old.contains(capability) || fresh.contains(capability);
            boolean both = old.contains(capability) && fresh.contains(capability);
            // A notification from either store may mean the name became free; the poll covers the rest.
            if (capability == Capability.RELEASE_NOTIFICATION ? either : both) {
                result.add(capability);
            }
        }
        if (phase == MigrationPhase.DUAL) {
            // Dual clients take no place in the new store's queue (see tryAcquireBoth): no order to promise.
            result.remove(Capability.FAIR);
            result.remove(Capability.INSPECT_WAITERS);
        }
        return result;
    }

    /**
     * A lock is freed at its TTL only if every store in use frees it: in the dual phase a ZooKeeper lock beside a
     * Redis one must be released by the client when the lease runs out, although Redis would free its half alone.
     */
    @Override
    public boolean appliesTtl() {
        return switch (phase) {
            case FROM -> from.appliesTtl();
            case TO -> to.appliesTtl();
            case DUAL -> from.appliesTtl() && to.appliesTtl();
        };
    }

    /** In the dual phase both stores are asked one after the other. */
    @Override
    public Duration commandTimeout() {
        return switch (phase) {
            case FROM -> from.commandTimeout();
            case TO -> to.commandTimeout();
            case DUAL -> from.commandTimeout().plus(to.commandTimeout());
        };
    }

    @Override
    public Duration minimumTtl() {
        return switch (phase) {
            case FROM -> from.minimumTtl();
            case TO -> to.minimumTtl();
            case DUAL -> max(from.minimumTtl(), to.minimumTtl());
        };
    }

    @Override
    public Duration effectiveTtl(Duration requested) {
        return switch (phase) {
            case FROM -> from.effectiveTtl(requested);
            case TO -> to.effectiveTtl(requested);
            case DUAL -> max(from.effectiveTtl(requested), to.effectiveTtl(requested));
        };
    }

    @Override
    public AutoCloseable subscribe(String name, Runnable onChange) {
        List<AutoCloseable> subscriptions = new ArrayList<>(2);
        for (LockProvider store : storesInUse()) {
            if (store.capabilities().contains(Capability.RELEASE_NOTIFICATION)) {
                subscriptions.add(store.subscribe(name, onChange));
            }
        }
        return () -> {
            for (AutoCloseable subscription : subscriptions) {
                subscription.close();
            }
        };
    }

    private List<LockProvider> storesInUse() {
        return switch (phase) {
            case FROM -> List.of(from);
            case TO -> List.of(to);
            case DUAL -> List.of(from, to);
        };
    }

    @Override
    public String describe() {
        return "migrate:" + phase.configName() + " from " + from.describe() + " to " + to.describe();
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (AutoCloseable closeable : new AutoCloseable[]{guard, to, from}) {
            try {
                closeable.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e instanceof RuntimeException re ? re : new LockStoreException("closing " + closeable, e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static void releaseQuietly(LockProvider store, Grant grant, RuntimeException primary) {
        try {
            store.release(grant);
        } catch (RuntimeException e) {
            primary.addSuppressed(e);
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
