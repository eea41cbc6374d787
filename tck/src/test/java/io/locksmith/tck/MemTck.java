package io.locksmith.tck;

import io.locksmith.LockClient;
import io.locksmith.mem.MemStore;
import io.locksmith.Capability;

import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;

/** The kit against the in-JVM reference store: every required rule must pass. */
class MemTck extends LockTck {

    /** One store per rule, as a test server per test would be. */
    private final String store = "tck-" + UUID.randomUUID();

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    @Override
    protected String storeUri() {
        return "mem://" + store;
    }

    /** What docs/BACKENDS.md promises of mem://: fencing tokens and release notification. */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION);
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        MemStore.named(store).expire(lockName);
    }
}
