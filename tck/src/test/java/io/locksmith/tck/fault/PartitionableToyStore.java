package io.locksmith.tck.fault;

import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A replicated toy store for the self-tests of rules R9.9 and R9.10: the majority's state, plus the state one member saw when it
 * was cut from the others ({@link #isolate()}). Clients reach it by {@code toy-partition://<store>/<side>}, where
 * {@code <side>} is {@code majority} or {@code minority}; locks expire at their TTL on the majority side, on the
 * next 100 ms sweep.
 *
 * <p>While the member is cut off, a {@link #blind} store lets it keep answering its clients' renewals from the
 * state it saw last, extending its own copy, as a ZooKeeper follower answers reads until it gives up on the
 * leader; a correct one refuses them (no quorum), as a renewal confirmed through the leader does.
 */
final class PartitionableToyStore {

    static final String SCHEME = "toy-partition";
    private static final Map<String, PartitionableToyStore> STORES = new ConcurrentHashMap<>();

    /** The majority frees expired locks on a sweep, as ZooKeeper expires sessions on tick boundaries. */
    private static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private record Holding(String ownerId, long token, long expiresAt) {
        boolean liveAt(long now) {
            return now - (expiresAt + SWEEP_NANOS - Math.floorMod(expiresAt, SWEEP_NANOS)) < 0;
        }
    }

    private final String id;
    private final boolean blind;
    private final Map<String, Holding> majority = new HashMap<>();
    /** What the cut-off member believes, or null while it is connected. */
    private Map<String, Holding> minorityView;
    /** Whether the minority side's member is frozen (rule R9.10): its calls hang until it is thawed. */
    private volatile boolean frozen;
    private long lastToken;

    private PartitionableToyStore(String id, boolean blind) {
        this.id = id;
        this.blind = blind;
    }

    /** A new store; {@code blind}: the cut-off member confirms renewals from its stale state. */
    static PartitionableToyStore create(String id, boolean blind) {
        PartitionableToyStore store = new PartitionableToyStore(id, blind);
        STORES.put(id, store);
        return store;
    }

    String uri(String side, String parameters) {
        return SCHEME + "://" + id + "/" + side + "?" + parameters;
    }

    synchronized void isolate() {
        minorityView = new HashMap<>(majority);
    }

    synchronized void heal() {
        minorityView = null;
    }

    /** Freezes the member of the minority side (rule R9.10): its clients' calls hang; the majority goes on. */
    void freeze() {
        frozen = true;
    }

    void thaw() {
        frozen = false;
    }

    /**
     * A call on the minority side while its member is frozen: hangs until the thaw (bounded, so that a test
     * that forgets to thaw leaks no thread for ever), as a call to a stopped process does.
     */
    private void hangWhileFrozen(boolean onMinority) {
        long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (onMinority && frozen && System.nanoTime() - giveUpAt < 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            if (Thread.currentThread().isInterrupted()) {
                throw new LockStoreException(null, SCHEME + "://" + id + "/minority: interrupted", null);
            }
        }
    }

    /**
     * The flaw of a {@link #blind} store while its member is frozen: a renewal that gets no answer is taken as
     * confirmed (a client-side cache, a watchdog that swallows its time-outs), without reaching the majority.
     */
    private boolean renewsBlindlyWhileFrozen(boolean onMinority) {
        return onMinority && frozen && blind;
    }

    void forget() {
        STORES.remove(id);
    }

    private synchronized Optional<Grant> tryAcquire(boolean onMinority, AcquireRequest request) {
        refuseWithoutQuorum(onMinority, request.name());
        long now = System.nanoTime();
        Holding current = majority.get(request.name());
        if (current != null && current.liveAt(now)) {
            return Optional.empty();
        }
        Holding holding = new Holding(request.owner().id(), ++lastToken, now + request.ttl().toNanos());
        majority.put(request.name(), holding);
        return Optional.of(new Grant(request.name(), request.owner(), holding.token(), request.ttl()));
    }

    private synchronized boolean renew(boolean onMinority, Grant grant, Duration ttl) {
        long now = System.nanoTime();
        if (onMinority && minorityView != null && blind) {
            // The flaw: answered from what the member saw last, and only its own copy is extended.
            return extend(minorityView, grant, ttl, now);
        }
        refuseWithoutQuorum(onMinority, grant.name());
        return extend(majority, grant, ttl, now);
    }

    private static boolean extend(Map<String, Holding> state, Grant grant, Duration ttl, long now) {
        Holding current = state.get(grant.name());
        if (current == null || !current.liveAt(now) || !current.ownerId().equals(grant.owner().id())) {
            return false;
        }
        state.put(grant.name(), new Holding(current.ownerId(), current.token(), now + ttl.toNanos()));
        return true;
    }

    private synchronized boolean release(boolean onMinority, Grant grant) {
        refuseWithoutQuorum(onMinority, grant.name());
        Holding current = majority.get(grant.name());
        if (current == null || !current.ownerId().equals(grant.owner().id())) {
            return false;
        }
        majority.remove(grant.name());
        return current.liveAt(System.nanoTime());
    }

    private void refuseWithoutQuorum(boolean onMinority, String name) {
        if (onMinority && minorityView != null) {
            throw new LockStoreException(name, SCHEME + "://" + id + "/minority: no quorum (the member is cut off)",
                    null);
        }
    }

    /** Serves {@code toy-partition://}; found by the ServiceLoader, as the rule opens clients by URI. */
    public static final class Factory implements LockProviderFactory {
        @Override
        public Set<String> schemes() {
            return Set.of(SCHEME);
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            String id = uri.hosts(0).get(0).host();
            PartitionableToyStore store = STORES.get(id);
            if (store == null) {
                throw new IllegalArgumentException("no toy store '" + id + "'");
            }
            boolean onMinority = uri.path().contains("minority");
            return new LockProvider() {
                @Override
                public Optional<Grant> tryAcquire(AcquireRequest request) {
                    store.hangWhileFrozen(onMinority);
                    return store.tryAcquire(onMinority, request);
                }

                @Override
                public boolean renew(Grant grant, Duration ttl) {
                    if (store.renewsBlindlyWhileFrozen(onMinority)) {
                        return true;
                    }
                    store.hangWhileFrozen(onMinority);
                    return store.renew(onMinority, grant, ttl);
                }

                @Override
                public boolean release(Grant grant) {
                    store.hangWhileFrozen(onMinority);
                    return store.release(onMinority, grant);
                }

                @Override
                public Optional<LockInfo> inspect(String name) {
                    return Optional.empty();
                }

                @Override
                public Set<Capability> capabilities() {
                    return EnumSet.of(Capability.FENCING);
                }

                @Override
                public String describe() {
                    return uri.toString();
                }

                @Override
                public void close() {
                }
            };
        }
    }
}
