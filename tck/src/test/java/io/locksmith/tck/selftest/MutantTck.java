package io.locksmith.tck.selftest;

import io.locksmith.LockClient;
import io.locksmith.mem.MemStore;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.tck.LockTck;
import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;

import java.util.Objects;
import java.util.UUID;

/**
 * The kit against {@code mem://} with one {@link Mutant} bug, chosen by {@link #use(Mutant)} before the kit runs
 * (the mutant suite runs it through the launcher, one mutant at a time). Named {@code *Tck} so that surefire does
 * not run it on its own.
 */
public class MutantTck extends LockTck implements SemaphoreKit, ReadWriteKit, ElectionKit {

    private static volatile Mutant current;

    private final Mutant mutant = Objects.requireNonNull(current, "MutantTck.use(Mutant) was not called");
    private final String store = "mutant-" + UUID.randomUUID();
    private final MutantProvider.Shared shared = new MutantProvider.Shared();

    /** The mutant the next kit instances use. */
    static void use(Mutant mutant) {
        current = mutant;
    }

    @Override
    protected LockClient newClient() {
        return ProviderClientBuilder.create().uri(storeUri()).factory(storeFactory("mutant")).build();
    }

    @Override
    protected String storeUri() {
        return "mutant://" + store;
    }

    @Override
    protected LockProviderFactory storeFactory(String scheme) {
        return MutantProvider.factory(scheme, store, mutant, shared);
    }

    @Override
    protected void endStoreSession(io.locksmith.spi.LockProvider storeProvider) {
        if (!(storeProvider instanceof MutantProvider provider) || !provider.capabilities()
                .contains(io.locksmith.Capability.SESSION_BOUND)) {
            throw new UnsupportedOperationException("only the session-bound mutant has a session");
        }
        provider.endSession();
    }

    /** What mem:// declares; a mutant that drops one of them must fail R8.11. */
    @Override
    protected java.util.Set<io.locksmith.Capability> expectedCapabilities() {
        return java.util.EnumSet.of(io.locksmith.Capability.FENCING, io.locksmith.Capability.RELEASE_NOTIFICATION);
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        MemStore.named(store).expire(mutant.key(lockName));
    }
}
