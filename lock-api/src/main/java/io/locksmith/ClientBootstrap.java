package io.locksmith;

import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * Finds the shared client's {@link LockClient.Builder} for {@link LockClient#builder()}.
 *
 * <p>Why a {@link ServiceLoader} and not {@code new ClientBuilder()}: the API package is what applications and
 * the SPI depend on, so it must not depend on the shared client ({@code io.locksmith.internal}), which
 * implements the API and the SPI; a direct call made the three packages one cycle, where a change anywhere
 * recompiled and re-tested everything, and the API could not be read without the implementation. The builder
 * is the only thing the API needs from the implementation, so the builder type itself is the service:
 * {@code module io.locksmith} {@code provides io.locksmith.LockClient.Builder with
 * io.locksmith.internal.ClientBuilder} (and {@code META-INF/services} for the class path). No new public type
 * was needed for that, and every builder is a new instance ({@link ServiceLoader.Provider#get()} calls the
 * public constructor each time). The provider is looked up once per class loader of this class.
 */
final class ClientBootstrap {

    private static volatile ServiceLoader.Provider<LockClient.Builder> provider;

    private ClientBootstrap() {
    }

    /**
     * A new builder.
     *
     * @throws LockConfigurationException if no implementation, or more than one, is on the class or module path
     *                                     (locksmith-api ships one; a second means two copies of it)
     */
    static LockClient.Builder newBuilder() {
        ServiceLoader.Provider<LockClient.Builder> found = provider;
        if (found == null) {
            found = findProvider();
            provider = found;
        }
        return found.get();
    }

    private static ServiceLoader.Provider<LockClient.Builder> findProvider() {
        List<ServiceLoader.Provider<LockClient.Builder>> providers =
                ServiceLoader.load(LockClient.Builder.class, LockClient.class.getClassLoader()).stream().toList();
        if (providers.size() != 1) {
            throw new LockConfigurationException("expected one implementation of " + LockClient.Builder.class.getName()
                    + " (the shared client in locksmith-api), found " + providers.size() + ": "
                    + providers.stream().map(p -> p.type().getName()).collect(Collectors.joining(", "))
                    + "; is locksmith-api on the path once, with its META-INF/services?");
        }
        return providers.get(0);
    }
}
