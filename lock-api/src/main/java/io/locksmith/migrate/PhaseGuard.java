package io.locksmith.migrate;

import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Registry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Each migrating client announces its phase in both stores, with a TTL it keeps refreshing, and refuses to
 * start when a live client runs in a phase that cannot coexist with its own (one that would skip a phase).
 * It announces before it looks, so two conflicting clients starting at the same moment both see each other
 * and both refuse, rather than both starting.
 */
final class PhaseGuard implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PhaseGuard.class);
    static final String CLIENTS_PREFIX = "locksmith/migration/clients/";
    /** Written to the new store by the first client in phase {@code to}; see {@link MigratingLockProvider}. */
    static final String NEW_TOKENS_MARKER = "locksmith/migration/new-store-tokens";

    private final String clientId;
    private final MigrationPhase phase;
    private final List<LockProvider> stores;
    private final Duration ttl;
    private final ScheduledExecutorService refresher;

    /** False for an observer ({@link #observer}): it announces nothing, so it has nothing to refresh or remove. */
    private final boolean announcing;

    private PhaseGuard(String clientId, MigrationPhase phase, List<LockProvider> stores, Duration ttl,
                       boolean announcing) {
        this.announcing = announcing;
        this.clientId = clientId;
        this.phase = phase;
        this.stores = stores;
        this.ttl = ttl;
        this.refresher = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "locksmith-migration-guard");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Announces {@code phase} for {@code clientId} in every store and checks the fleet.
     *
     * @throws LockConfigurationException naming the conflicting clients if a live client's phase cannot
     *                                    coexist with {@code phase}, or if a store offers no registry
     */
    static PhaseGuard start(String clientId, MigrationPhase phase, List<LockProvider> stores, Duration ttl) {
        for (LockProvider store : stores) {
            if (store.registry().isEmpty()) {
                throw new LockConfigurationException(store.describe()
                        + " keeps no registry records, which the migration phase guard needs");
            }
        }
        PhaseGuard guard = new PhaseGuard(clientId, phase, stores, ttl, true);
        try {
            guard.announce();
            guard.check();
        } catch (RuntimeException e) {
            guard.close();
            throw e;
        }
        long period = Math.max(1, ttl.toMillis() / 3);
        guard.refresher.scheduleWithFixedDelay(guard::refresh, period, period, TimeUnit.MILLISECONDS);
        return guard;
    }

    /**
     * The guard of a client that only reads (lockctl inspect): it announces no phase and checks no fleet, so
     * opening it writes nothing to either store. Such a client must not take locks.
     */
    static PhaseGuard observer(String clientId, MigrationPhase phase, List<LockProvider> stores) {
        return new PhaseGuard(clientId, phase, stores, Duration.ZERO, false);
    }

    /** Whether this is an {@link #observer} guard. */
    boolean isObserver() {
        return !announcing;
    }

    private void announce() {
        for (LockProvider store : stores) {
            store.registry().orElseThrow().put(CLIENTS_PREFIX + clientId, phase.configName(), ttl);
        }
    }

    private void refresh() {
        try {
            announce();
        } catch (RuntimeException e) {
            LOG.warn("could not refresh the migration phase announcement of client {}: {}", clientId, e.toString());
        }
    }

    private void check() {
        List<FleetMember> conflicting = new ArrayList<>();
        for (FleetMember member : fleet(stores)) {
            if (!member.clientId().equals(clientId) && !member.phase().canCoexistWith(phase)) {
                conflicting.add(member);
            }
        }
        if (!conflicting.isEmpty()) {
            throw new LockConfigurationException("refusing to start in migration phase '" + phase.configName()
                    + "': live clients run in a phase two steps away, and the two would not exclude each other: "
                    + conflicting + ". Roll every instance to the phase in between first (from -> dual -> to)");
        }
    }

    /** The live clients announced in the given stores, one entry per client. */
    static List<FleetMember> fleet(List<LockProvider> stores) {
        Map<String, FleetMember> members = new LinkedHashMap<>();
        for (LockProvider store : stores) {
            Registry registry = store.registry().orElseThrow(() -> new LockConfigurationException(
                    store.describe() + " keeps no registry records"));
            registry.list(CLIENTS_PREFIX).forEach((key, value) -> {
                String id = key.substring(CLIENTS_PREFIX.length());
                try {
                    members.putIfAbsent(id, new FleetMember(id, MigrationPhase.parse(value), store.describe()));
                } catch (LockConfigurationException e) {
                    LOG.warn("ignoring an unreadable migration announcement {}={} in {}", key, value, store.describe());
                }
            });
        }
        return List.copyOf(members.values());
    }

    @Override
    public void close() {
        refresher.shutdownNow();
        if (!announcing) {
            return;
        }
        for (LockProvider store : stores) {
            try {
                store.registry().ifPresent(registry -> registry.remove(CLIENTS_PREFIX + clientId));
            } catch (LockStoreException e) {
                LOG.debug("could not remove the migration announcement of {}; it expires", clientId, e);
            }
        }
    }
}
