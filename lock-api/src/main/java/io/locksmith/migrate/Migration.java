package io.locksmith.migrate;

import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Operations on a store migration as a whole, for operators and {@code lockctl}. */
public final class Migration {

    private Migration() {
    }

    /**
     * A factory for clients that only look at a migration's locks: {@code inspect} works as on any client of the
     * migrate: URI (the phase decides the store and the token), but opening one announces no phase and checks no
     * fleet, so it writes nothing to either store, and it refuses to take locks. What {@code lockctl inspect}
     * opens for a {@code migrate:} URI:
     * <pre>{@code
     * try (LockClient observer = ProviderClientBuilder.create().uri(migrateUri).factory(Migration.observer()).build()) {
     *     observer.inspect("order:1001");
     * }
     * }</pre>
     */
    public static LockProviderFactory observer() {
        return new MigratingLockProviderFactory(true);
    }

    /**
     * The live clients of the migration configured by {@code migrateUri}, with their phases, as announced
     * in both stores. Reads only.
     *
     * @throws LockConfigurationException if {@code migrateUri} is not a valid {@code migrate:} URI
     * @throws io.locksmith.LockStoreException if a store cannot be reached
     */
    public static List<FleetMember> fleet(String migrateUri) {
        LockUri uri = LockUri.parse(migrateUri);
        if (!uri.scheme().equals("migrate")) {
            throw new LockConfigurationException("'" + uri + "' is not a migrate: URI");
        }
        ProviderContext context = new ProviderContext("fleet-reader-" + UUID.randomUUID(), (grant, reason, cause) -> {
        });
        List<LockProvider> stores = new ArrayList<>(2);
        try {
            stores.add(MigratingLockProviderFactory.open(MigratingLockProviderFactory.childUri(uri, "from"), context, "from"));
            stores.add(MigratingLockProviderFactory.open(MigratingLockProviderFactory.childUri(uri, "to"), context, "to"));
            return PhaseGuard.fleet(stores);
        } finally {
            for (LockProvider store : stores) {
                store.close();
            }
        }
    }
}
