package io.locksmith.internal;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockListener;
import io.locksmith.LockOptions;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.ProviderClientBuilder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The {@link LockClient.Builder} behind {@link LockClient#builder()}, found by {@link java.util.ServiceLoader}
 * (module-info and META-INF/services); public with a public constructor for that reason only.
 */
public final class ClientBuilder implements ProviderClientBuilder {

    String uri;
    LockProviderFactory factory;
    LockOptions defaultLockOptions;
    final List<LockListener> listeners = new ArrayList<>();
    Supplier<String> traceIdSupplier = TraceIds::fromMdc;
    String clientId = UUID.randomUUID().toString();
    Duration maxPollInterval = Duration.ofSeconds(1);

    @Override
    public ProviderClientBuilder uri(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri cannot be null");
        return this;
    }

    @Override
    public ProviderClientBuilder factory(LockProviderFactory factory) {
        this.factory = Objects.requireNonNull(factory, "factory cannot be null");
        return this;
    }

    @Override
    public ProviderClientBuilder defaultLockOptions(LockOptions options) {
        this.defaultLockOptions = Objects.requireNonNull(options, "options cannot be null");
        return this;
    }

    @Override
    public ProviderClientBuilder listener(LockListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener cannot be null"));
        return this;
    }

    @Override
    public ProviderClientBuilder traceIdSupplier(Supplier<String> traceIdSupplier) {
        this.traceIdSupplier = Objects.requireNonNull(traceIdSupplier, "traceIdSupplier cannot be null");
        return this;
    }

    @Override
    public ProviderClientBuilder clientId(String clientId) {
        Objects.requireNonNull(clientId, "clientId cannot be null");
        if (clientId.isBlank() || clientId.length() > 64 || !clientId.matches("[A-Za-z0-9._:-]+")) {
            throw new IllegalArgumentException("clientId must be 1 to 64 characters of [A-Za-z0-9._:-], was '"
                    + clientId + "'");
        }
        this.clientId = clientId;
        return this;
    }

    @Override
    public ProviderClientBuilder maxPollInterval(Duration interval) {
        Objects.requireNonNull(interval, "interval cannot be null");
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("maxPollInterval must be positive, was " + interval);
        }
        this.maxPollInterval = interval;
        return this;
    }

    @Override
    public LockClient build() {
        if (uri == null) {
            throw new LockConfigurationException("no lock store URI given: call uri(...), e.g. uri(\"mem://\")");
        }
        return DefaultLockClient.open(this);
    }
}
