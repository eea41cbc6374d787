package io.locksmith.tck.kits;

import io.locksmith.Capability;
import io.locksmith.LockClient;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.RawStoreSession;
import io.locksmith.tck.TckTiming;

import java.util.Set;
import java.util.UUID;

/**
 * What the kits need from the store under test: the hooks a backend author overrides on
 * {@link io.locksmith.tck.LockTck}, which hands them to every kit through this interface (as
 * {@link io.locksmith.tck.ListingTck} and {@link io.locksmith.tck.RegistryTck} do for theirs). A backend author
 * does not implement it; it is public for a class that runs one kit on its own ({@link RuleKit}).
 *
 * <p>Each method means what the {@code LockTck} hook of the same name means. The defaults are those of
 * {@code LockTck}: an optional hook throws {@link UnsupportedOperationException}, and the rules that need it are
 * skipped, naming it.
 */
public interface StoreHooks {

    /** The kit class's simple name, for the messages of skipped rules ("the kit subclass X does not implement"). */
    String kitName();

    /** A NEW client on the store under test (a new client id each call); the default opens {@link #storeUri()}. */
    default LockClient newClient() {
        return LockClient.open(storeUri());
    }

    /** The URI of the store under test, for the rules that open their own clients and providers on it. */
    default String storeUri() {
        throw new UnsupportedOperationException("storeUri() is not implemented by " + kitName());
    }

    /** Makes the store drop the lock now, behind its holder's back, as if its TTL ran out. */
    default void expireBehindClientsBack(String lockName) {
        throw new UnsupportedOperationException("expireBehindClientsBack(String) is not implemented by " + kitName());
    }

    /** The timing for this store. */
    default TckTiming timing() {
        return TckTiming.defaults();
    }

    /** The capabilities the store is expected to declare (rule R8.11). */
    default Set<Capability> expectedCapabilities() {
        throw new UnsupportedOperationException("expectedCapabilities() is not implemented by " + kitName());
    }

    /** Ends the store session of {@code storeProvider} as the store itself would (rule R9.13). */
    default void endStoreSession(LockProvider storeProvider) {
        throw new UnsupportedOperationException("endStoreSession(LockProvider) is not implemented by " + kitName());
    }

    /** A session speaking the store's own commands as {@code identity} (rule R2.6). */
    default RawStoreSession rawStoreSession(RawStoreSession.Identity identity) throws Exception {
        throw new UnsupportedOperationException("rawStoreSession(Identity) is not implemented by " + kitName());
    }

    /** The factory that serves {@link #storeUri()}; the default is {@link #registeredFactory(String)}. */
    default LockProviderFactory storeFactory(String scheme) {
        return registeredFactory(scheme);
    }

    /**
     * A new provider on the store under test, each with its own client id (the registry kit); the default opens
     * {@link #storeUri()} with {@link #storeFactory(String)}.
     */
    default LockProvider newProvider() {
        LockUri uri = LockUri.parse(storeUri());
        return storeFactory(uri.scheme()).create(uri,
                new ProviderContext("locksmith-tck-" + UUID.randomUUID(), (grant, reason, cause) -> { }));
    }

    /**
     * The factory {@link java.util.ServiceLoader} finds for {@code scheme}.
     *
     * @throws IllegalStateException if no factory on the class path serves the scheme
     */
    static LockProviderFactory registeredFactory(String scheme) {
        for (LockProviderFactory factory : java.util.ServiceLoader.load(LockProviderFactory.class)) {
            if (factory.schemes().contains(scheme)) {
                return factory;
            }
        }
        throw new IllegalStateException("no LockProviderFactory on the class path serves the scheme '" + scheme
                + "' of storeUri(); override storeFactory(String)");
    }
}
