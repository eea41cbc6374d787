package io.locksmith.tck;

import io.locksmith.LockClient;
import io.locksmith.spi.LockProvider;
import io.locksmith.tck.kits.ListingKit;
import io.locksmith.tck.kits.RegistryKit;

/**
 * Every kit of this module on one store: the rules of {@link LockTck}, plus the listing kit ({@link ListingKit})
 * and the registry kit ({@link RegistryKit}), so that one server start serves the three. Extend it instead of
 * {@link LockTck} when the provider offers {@link LockProvider#list(String)} and {@link LockProvider#registry()};
 * it needs {@link #storeUri()}, and opens every client on it:
 * <pre>{@code
 * class MyStoreTckTest extends StoreTck {
 *     protected String storeUri() {
 *         return "mystore://127.0.0.1:" + server.port();
 *     }
 * }
 * }</pre>
 *
 * <p>The listing kit opens its clients with {@link #newClient()}; the registry kit opens its providers on
 * {@link #storeUri()} with the factory {@link #storeFactory(String)} finds for the URI's scheme, each with a client
 * id of its own. Like the rules, their tests are methods of the author's class, counted and reported under it.
 */
public abstract class StoreTck extends LockTck implements ListingKit, RegistryKit {

    /**
     * The URI of the store under test: every client and provider of the three kits is opened on it, so every
     * rule that needs it runs.
     */
    @Override
    protected abstract String storeUri();

    /** A new client on {@link #storeUri()}; override it for a client built another way. */
    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }
}
