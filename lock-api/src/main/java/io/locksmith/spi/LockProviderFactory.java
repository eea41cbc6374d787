package io.locksmith.spi;

import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

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

    /**
     * Hands out {@code provider} once {@code firstCheck} passed on it, for a {@link #create} that reaches the store
     * before it returns (a probe, a schema check), so that an unreachable store fails at once. If the check throws,
     * the provider is closed, so that no connection or thread outlives the failed {@code create}, and the check's
     * failure is rethrown, with any failure of the close attached as suppressed.
     * <pre>{@code
     * return LockProviderFactory.closeOnFailure(new MyLockProvider(client, settings), MyLockProvider::probe);
     * }</pre>
     *
     * @return {@code provider}
     * @throws NullPointerException if {@code provider} or {@code firstCheck} is null
     * @throws RuntimeException     what {@code firstCheck} threw, once the provider is closed
     */
    static <P extends LockProvider> P closeOnFailure(P provider, Consumer<? super P> firstCheck) {
        Objects.requireNonNull(provider, "provider cannot be null");
        Objects.requireNonNull(firstCheck, "firstCheck cannot be null");
        try {
            firstCheck.accept(provider);
        } catch (RuntimeException e) {
            try {
                provider.close();
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        return provider;
    }
}
