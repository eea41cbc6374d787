package io.locksmith.tck;

import io.locksmith.LockClient;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.Nested;

import java.util.UUID;

/**
 * Every kit of this module on one store: the rules of {@link LockTck}, plus the listing kit ({@link ListingTck})
 * and the registry kit ({@link RegistryTck}) as JUnit {@link Nested} classes, so that one server start serves the
 * three kits. Extend it instead of {@link LockTck} when the provider offers {@link LockProvider#list(String)} and
 * {@link LockProvider#registry()}; it needs {@link #storeUri()}, and opens every client on it:
 * <pre>{@code
 * class MyStoreTckTest extends StoreTck {
 *     protected String storeUri() {
 *         return "mystore://127.0.0.1:" + server.port();
 *     }
 * }
 * }</pre>
 *
 * <p>The listing kit opens its clients with {@link #newClient()}; the registry kit opens its providers on
 * {@link #storeUri()} with the factory {@link #storeFactory(String)} finds for the URI's scheme.
 */
public abstract class StoreTck extends LockTck {

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

    /** The listing kit on the store of the enclosing kit. */
    @Nested
    class Listing extends ListingTck {
        @Override
        protected LockClient newClient() {
            return StoreTck.this.newClient();
        }
    }

    /** The registry kit on the store of the enclosing kit. */
    @Nested
    class Registry extends RegistryTck {
        @Override
        protected LockProvider newProvider() {
            LockUri uri = LockUri.parse(storeUri());
            return storeFactory(uri.scheme()).create(uri, registryContext());
        }
    }

    /**
     * The context of a provider the registry kit opens without a client: a client id of its own for each provider, as
     * every client has ({@link ProviderContext#clientId()}), since a store may name connections or instances after it.
     */
    static ProviderContext registryContext() {
        return new ProviderContext("locksmith-tck-registry-" + UUID.randomUUID(), (grant, reason, cause) -> { });
    }
}
