package io.locksmith.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * {@code etcd://[user:password@]host[:port][,host[:port]...][?prefix=/locks/&timeout=5s]} (or {@code etcd://user@host
 * ?passwordFile=/path}, read again at every login), and {@code etcds://} for
 * TLS ({@code trustStore}, {@code clientCert}, {@code clientKey}): locks on an etcd cluster (v3 API) through jetcd.
 * See {@code docs/ETCD.md} for the key layout, the lease choice, TLS, authentication and what etcd guarantees.
 */
public final class EtcdLockProviderFactory implements LockProviderFactory {

    @Override
    public Set<String> schemes() {
        return Set.of(EtcdSettings.SCHEME, EtcdSettings.TLS_SCHEME);
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
        settings.passwordFile().ifPresent(file -> builder.authInterceptors(new CurrentPassword(file)));
        if (settings.tls()) {
            tls(builder, settings);
        }
        Client client = builder.build();
        return LockProviderFactory.closeOnFailure(new EtcdLockProvider(client, settings, context),
                EtcdLockProvider::probe);
    }

    /**
     * TLS with gRPC's client defaults (ALPN h2, the JDK's provider): the members' certificates are checked against
     * {@code trustStore} (or the JDK's authorities) and the host name of each endpoint; with {@code clientCert} and
     * {@code clientKey} the client presents its own certificate (mutual TLS, etcd's {@code --client-cert-auth}).
     */
    private static void tls(ClientBuilder builder, EtcdSettings settings) {
        try {
            builder.sslContext(ssl -> {
                settings.trustStore().ifPresent(file -> ssl.trustManager(file.toFile()));
                if (settings.clientCert().isPresent()) {
                    ssl.keyManager(settings.clientCert().get().toFile(), settings.clientKey().orElseThrow().toFile());
                }
            });
        } catch (javax.net.ssl.SSLException | IllegalArgumentException e) {
            throw new LockConfigurationException("cannot read the TLS files of " + settings.describe() + " (trustStore="
                    + settings.trustStore().map(Object::toString).orElse("the JDK's authorities") + ", clientCert="
                    + settings.clientCert().map(Object::toString).orElse("none") + ", clientKey="
                    + settings.clientKey().map(Object::toString).orElse("none")
                    + "): PEM certificates and an unencrypted PKCS#8 PEM key are expected: " + e.getMessage(), e);
        }
    }
}
