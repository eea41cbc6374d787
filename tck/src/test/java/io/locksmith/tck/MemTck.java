package io.locksmith.tck;

import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;
import io.locksmith.mem.MemStore;
import io.locksmith.Capability;

import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;

/**
 * Every kit against the in-JVM reference store, through {@link StoreTck} (the rules, the listing and the registry
 * kit): every required rule must pass.
 * The primitives' kit (SemaphoreKit, ReadWriteKit, ElectionKit) runs in the same class, on the same store.
 */
class MemTck extends StoreTck implements SemaphoreKit, ReadWriteKit, ElectionKit {

    /**
     * What mem:// promises: fencing tokens and release notification. A {@code migrate:} provider over two mem://
     * stores promises the same in every phase (fencing where both stores fence, notification where either notifies).
     */
    static final Set<Capability> CAPABILITIES = EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION);

    /** One store per rule, as a test server per test would be. */
    private final String store = "tck-" + UUID.randomUUID();

    @Override
    protected String storeUri() {
        return "mem://" + store;
    }

    /** What mem:// promises (R8.11). */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return CAPABILITIES;
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        MemStore.named(store).expire(lockName);
    }
}
