package io.locksmith.zookeeper;

import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.util.Set;

/** The real factory, keeping the provider it made so a test can reach the ZooKeeper session behind a client. */
final class CapturingFactory implements LockProviderFactory {

    private final ZooKeeperLockProviderFactory delegate = new ZooKeeperLockProviderFactory();
    volatile ZooKeeperLockProvider provider;

    @Override
    public Set<String> schemes() {
        return delegate.schemes();
    }

    @Override
    public LockProvider create(LockUri uri, ProviderContext context) {
        provider = (ZooKeeperLockProvider) delegate.create(uri, context);
        return provider;
    }
}
