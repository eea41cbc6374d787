package io.locksmith.tck;

import io.locksmith.mem.MemStore;

import java.util.UUID;

/**
 * The primitives' kit against {@code migrate:} over two in-JVM stores in phase {@code dual}: every store lock of a
 * primitive (each permit, the gate, the term) is taken in both stores, so a semaphore of N permits holds at most N in
 * each, and a client in an adjacent phase shares the N of the store it uses (MigrationPrimitivesTest).
 */
class MigrateDualMemPrimitivesTck extends PrimitivesTck {

    private final String oldStore = "old-" + UUID.randomUUID();
    private final String newStore = "new-" + UUID.randomUUID();

    @Override
    protected String storeUri() {
        return "migrate:?from=mem://" + oldStore + "&to=mem://" + newStore + "&phase=dual";
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        MemStore.named(oldStore).expire(lockName);
        MemStore.named(newStore).expire(lockName);
    }
}
