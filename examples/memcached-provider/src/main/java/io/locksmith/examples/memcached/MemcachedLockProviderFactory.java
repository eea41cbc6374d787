package io.locksmith.examples.memcached;

import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.time.Duration;
import java.util.Set;

/**
 * {@code memcached://host[:port][?timeout=2s]}: a lock on one memcached server (default port 11211), started with
 * {@code -M} so that it never evicts items. {@code timeout} bounds every connect and every reply (default 2 s).
 * Found by {@link java.util.ServiceLoader} through {@code META-INF/services/io.locksmith.spi.LockProviderFactory}:
 * <pre>{@code
 * try (LockClient locks = LockClient.open("memcached://127.0.0.1:11211")) { ... }
 * }</pre>
 */
public final class MemcachedLockProviderFactory implements LockProviderFactory {

    static final int DEFAULT_PORT = 11211;
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    @Override
    public Set<String> schemes() {
        return Set.of("memcached");
    }

    @Override
    public boolean validate(LockUri uri) {
        settings(uri);
        return true;
    }

    @Override
    public LockProvider create(LockUri uri, ProviderContext context) {
        Settings settings = settings(uri);
        MemcachedConnections connections = new MemcachedConnections(settings.host().host(), settings.host().port(),
                settings.timeout());
        return LockProviderFactory.closeOnFailure(new MemcachedLockProvider(connections, settings.timeout()),
                MemcachedLockProvider::checkServer);
    }

    private record Settings(LockUri.HostPort host, Duration timeout) {
    }

    private static Settings settings(LockUri uri) {
        var hosts = uri.hosts(DEFAULT_PORT);
        if (hosts.size() != 1) {
            throw new LockConfigurationException("'" + uri + "' names " + hosts.size() + " servers; memcached:// takes"
                    + " one (memcached servers do not replicate, so a lock cannot span several)");
        }
        if (!uri.path().isEmpty() && !uri.path().equals("/")) {
            throw new LockConfigurationException("'" + uri + "' has a path '" + uri.path() + "'; memcached:// takes none");
        }
        return new Settings(hosts.get(0), uri.duration("timeout", DEFAULT_TIMEOUT));
    }
}
