package io.locksmith.tck;

import io.locksmith.LockClient;
import io.locksmith.mem.MemStore;
import org.junit.jupiter.api.Nested;

import java.util.UUID;

/**
 * The whole kit against {@code migrate:} over two in-JVM stores, in each phase: a migrating client must be
 * as good a lock as a plain one. Cross-phase exclusion and tokens are tested in lock-api's MigrationTest.
 */
class MigrateMemTck {

    abstract static class PhaseTck extends LockTck {
        private final String oldStore = "old-" + UUID.randomUUID();
        private final String newStore = "new-" + UUID.randomUUID();

        abstract String phase();

        @Override
        protected LockClient newClient() {
            return LockClient.open("migrate:?from=mem://" + oldStore + "&to=mem://" + newStore + "&phase=" + phase());
        }

        @Override
        protected void expireBehindClientsBack(String lockName) {
            // In every phase, losing either store's lock loses the lease.
            if (!phase().equals("to")) {
                MemStore.named(oldStore).expire(lockName);
            }
            if (!phase().equals("from")) {
                MemStore.named(newStore).expire(lockName);
            }
        }
    }

    @Nested
    class FromPhase extends PhaseTck {
        @Override
        String phase() {
            return "from";
        }
    }

    @Nested
    class DualPhase extends PhaseTck {
        @Override
        String phase() {
            return "dual";
        }
    }

    @Nested
    class ToPhase extends PhaseTck {
        @Override
        String phase() {
            return "to";
        }
    }
}
