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
}
