package io.locksmith.tck;

import io.locksmith.Capability;
import io.locksmith.LockClient;
import io.locksmith.mem.MemStore;
import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;

import java.util.Set;
import java.util.UUID;

/**
 * The whole kit against {@code migrate:} over two in-JVM stores in phase {@code to}: a migrating client
 * must be as good a lock as a plain one. Cross-phase exclusion and tokens: lock-api's MigrationTest.
 */
class MigrateToMemTck extends LockTck implements SemaphoreKit, ReadWriteKit, ElectionKit {

    private final String oldStore = "old-" + UUID.randomUUID();
    private final String newStore = "new-" + UUID.randomUUID();

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    @Override
    protected String storeUri() {
        return "migrate:?from=mem://" + oldStore + "&to=mem://" + newStore + "&phase=to";
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        MemStore.named(newStore).expire(lockName);
    }

    /** What mem:// promises, kept by the migrating provider (R8.11). */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return MemTck.CAPABILITIES;
    }
}
