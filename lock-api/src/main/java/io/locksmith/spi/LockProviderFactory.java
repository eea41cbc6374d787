package io.locksmith.spi;

import java.util.Set;

/**
 * Creates {@link LockProvider}s for URI schemes. Found with {@link java.util.ServiceLoader}: a backend jar
 * lists its implementation in {@code META-INF/services/io.locksmith.spi.LockProviderFactory}.
 * Implementations need a public no-argument constructor.
 */
public interface LockProviderFactory {

    /** The URI schemes this factory serves, lower case, e.g. {@code redis} and {@code rediss}. */
    Set<String> schemes();

    /**
     * Creates a provider for {@code uri}. It reads its parameters through {@code uri}'s accessors; the client
     * reports any parameter nobody read as unknown.
     *
     * @throws io.locksmith.LockConfigurationException if the URI does not suit this store, naming the bad part
     * @throws io.locksmith.LockStoreException         if the store cannot be reached
     */
    LockProvider create(LockUri uri, ProviderContext context);

    /**
     * Reads and checks the settings of {@code uri} as {@link #create} does, without connecting to the store, so that
     * a typo (an unknown parameter, a bad value) is reported at once, also when the store is down. A factory that
     * overrides it reads here every parameter it knows; the shared client then names any parameter left unread
     * before it connects. The default reads nothing: unknown parameters are then named after {@link #create}, which
     * waits for the store first.
     *
     * @return true if every parameter this factory knows was read, so that any other is unknown
     * @throws io.locksmith.LockConfigurationException if a setting is invalid, naming it
     */
    default boolean validate(LockUri uri) {
        return false;
    }
}
