package io.locksmith.mem;

import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.util.Set;

/**
 * {@code mem://[NAME]}: an in-JVM store. Clients opened on the same name share one store, so several
 * clients in one JVM exclude each other just as processes would on a server; {@code mem://} is the default
 * store. For application unit tests, and the TCK's reference.
 */
public final class MemLockProviderFactory implements LockProviderFactory {

    @Override
    public Set<String> schemes() {
        return Set.of("mem");
    }

    @Override
    public LockProvider create(LockUri uri, ProviderContext context) {
        if (uri.rawHosts().size() > 1) {
            throw new LockConfigurationException("'" + uri + "' names several stores; mem:// takes one name, e.g. mem://orders");
        }
        String name = uri.rawHosts().isEmpty() ? "" : uri.rawHosts().get(0);
        if (!uri.path().isEmpty() && !uri.path().equals("/")) {
            throw new LockConfigurationException("'" + uri + "' has a path '" + uri.path() + "'; mem:// takes only a store name");
        }
        return new MemLockProvider(MemStore.named(name));
    }
}
