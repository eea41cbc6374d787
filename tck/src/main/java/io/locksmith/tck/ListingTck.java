package io.locksmith.tck;

import io.locksmith.LockClient;
import io.locksmith.tck.kits.KitContext;
import io.locksmith.tck.kits.ListingKit;
import io.locksmith.tck.kits.StoreHooks;
import org.junit.jupiter.api.Timeout;

/**
 * The listing kit ({@link ListingKit}: the contract of {@link io.locksmith.spi.LockProvider#list(String)}) on its
 * own: extend it with a client on a live store. A provider that cannot list does not need it; a store that runs
 * {@link StoreTck} runs it there.
 */
@Timeout(60)
public abstract class ListingTck implements ListingKit {

    private final KitContext kitContext = new KitContext(new StoreHooks() {
        @Override
        public String kitName() {
            return ListingTck.this.getClass().getSimpleName();
        }

        @Override
        public LockClient newClient() {
            return ListingTck.this.newClient();
        }
    });

    /** A new client on the store under test; the kit closes it. Called twice per test: a holder and a reader. */
    protected abstract LockClient newClient();

    /** The hook above and the resources of the running test, as the kit sees them. */
    @Override
    public final KitContext kitContext() {
        return kitContext;
    }
}
