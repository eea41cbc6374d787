package io.locksmith.spi;

import io.locksmith.LockClient;
import io.locksmith.LockListener;
import io.locksmith.LockOptions;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A {@link LockClient.Builder} that can also take its store from a given {@link LockProviderFactory} instead of
 * the one {@link java.util.ServiceLoader} finds for the URI's scheme: a custom backend under test, a factory
 * holding an existing connection (a {@code RedissonClient}, say), or a factory wrapped by a fault injector.
 * <pre>{@code
 * try (LockClient locks = ProviderClientBuilder.create().uri("mystore://").factory(new MyStoreFactory()).build()) {
 *     ...
 * }
 * }</pre>
 *
 * <p>This is in the SPI, not on {@link LockClient.Builder}, because a factory is an SPI type and the API does
 * not depend on the SPI (the SPI depends on the API). Every builder that {@link LockClient#builder()} returns is
 * one; {@link #of(LockClient.Builder)} gives that view of a builder received as a {@code LockClient.Builder}
 * (for example in a Spring {@code LockClientBuilderCustomizer}). Applications implement neither.
 */
public interface ProviderClientBuilder extends LockClient.Builder {

    /**
     * A new builder of the shared client.
     *
     * @throws io.locksmith.LockConfigurationException as {@link LockClient#builder()}
     */
    static ProviderClientBuilder create() {
        return of(LockClient.builder());
    }

    /**
     * The SPI view of a builder from {@link LockClient#builder()}: the same object.
     *
     * @throws NullPointerException     if {@code builder} is null
     * @throws IllegalArgumentException if {@code builder} does not come from {@link LockClient#builder()}
     */
    static ProviderClientBuilder of(LockClient.Builder builder) {
        Objects.requireNonNull(builder, "builder cannot be null");
        if (builder instanceof ProviderClientBuilder providerClientBuilder) {
            return providerClientBuilder;
        }
        throw new IllegalArgumentException("not a builder from LockClient.builder(): " + builder.getClass().getName());
    }

    /**
     * Uses this factory instead of looking the URI's scheme up with {@link java.util.ServiceLoader}.
     *
     * @throws NullPointerException if {@code factory} is null
     */
    ProviderClientBuilder factory(LockProviderFactory factory);

    @Override
    ProviderClientBuilder uri(String uri);

    @Override
    ProviderClientBuilder defaultLockOptions(LockOptions options);

    @Override
    ProviderClientBuilder listener(LockListener listener);

    @Override
    ProviderClientBuilder traceIdSupplier(Supplier<String> traceIdSupplier);

    @Override
    ProviderClientBuilder clientId(String clientId);

    @Override
    ProviderClientBuilder maxPollInterval(Duration interval);
}
