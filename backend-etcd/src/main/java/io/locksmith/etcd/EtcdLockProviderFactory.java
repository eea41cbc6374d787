package io.locksmith.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * {@code etcd://[user:password@]host[:port][,host[:port]...][?prefix=/locks/&timeout=5s]}: locks on an
 * etcd cluster (v3 API) through jetcd. See {@code docs/ETCD.md} for the key layout, the lease choice and
 * what etcd guarantees.
 */
public final class EtcdLockProviderFactory implements LockProviderFactory {

    @Override
    public Set<String> schemes() {
        return Set.of("etcd");
    }

    /** Parses the settings as {@link #create} does, without connecting. */
    @Override
    public boolean validate(LockUri uri) {
        EtcdSettings.from(uri);
        return true;
    }

    @Override
    public LockProvider create(LockUri uri, ProviderContext context) {
        EtcdSettings settings = EtcdSettings.from(uri);
        ClientBuilder builder = Client.builder()
                .endpoints(settings.endpoints().toArray(String[]::new))
                .connectTimeout(settings.timeout())
                // A request to a store that refuses every connection fails at once with UNAVAILABLE and the refused
                // connection as its cause, instead of waiting for a channel that will not come (gRPC's wait-for-ready,
                // jetcd's default) or being retried inside jetcd: Calls retries transient failures itself, within the
                // caller's bound, and the shared client must see the refusal to know the outage (SPEC R9.14).
                .waitForReady(false)
                .retryMaxAttempts(0);
        settings.user().ifPresent(user -> builder.user(EtcdKeys.bytes(user)));
        settings.password().ifPresent(password ->
                builder.password(io.etcd.jetcd.ByteSequence.from(password, StandardCharsets.UTF_8)));
        Client client = builder.build();
        return LockProviderFactory.closeOnFailure(new EtcdLockProvider(client, settings, context),
                EtcdLockProvider::probe);
    }
}
