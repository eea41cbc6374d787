package io.locksmith.tck;

import io.locksmith.spi.LockProvider;
import io.locksmith.tck.kits.KitContext;
import io.locksmith.tck.kits.RegistryKit;
import io.locksmith.tck.kits.StoreHooks;
import org.junit.jupiter.api.Timeout;

/**
 * The registry kit ({@link RegistryKit}: the contract of {@link io.locksmith.spi.Registry}, the optional key-value
 * records a provider offers for client coordination) on its own: extend it with a provider on a live store. A
 * provider without a registry does not need it; a store that runs {@link StoreTck} runs it there.
 */
@Timeout(60)
public abstract class RegistryTck implements RegistryKit {

    private final KitContext kitContext = new KitContext(new StoreHooks() {
        @Override
        public String kitName() {
            return RegistryTck.this.getClass().getSimpleName();
        }

        @Override
        public LockProvider newProvider() {
            return RegistryTck.this.newProvider();
        }
    });

    /** A new provider on the store under test; the kit closes it. */
    protected abstract LockProvider newProvider();

    /** The hook above and the resources of the running test, as the kit sees them. */
    @Override
    public final KitContext kitContext() {
        return kitContext;
    }
}
