package io.locksmith.tck.selftest;

import io.locksmith.LockInfo;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/** Serves one scheme with providers over one {@link ToyStore}; registered with {@code LockClient.builder().factory(...)}. */
final class ToyProviderFactory implements LockProviderFactory {

    private final String scheme;
    private final ToyStore store;

    ToyProviderFactory(String scheme, ToyStore store) {
        this.scheme = scheme;
        this.store = store;
    }

    @Override
    public Set<String> schemes() {
        return Set.of(scheme);
    }

    @Override
    public LockProvider create(LockUri uri, ProviderContext context) {
        return new ToyProvider();
    }

    private final class ToyProvider implements LockProvider {
        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            long token = store.tryAcquire(request.name(), request.owner(), request.ttl(), request.willWait());
            return token < 0 ? Optional.empty()
                    : Optional.of(new Grant(request.name(), request.owner(), token, request.ttl()));
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            return store.renew(grant.name(), grant.owner().id(), ttl);
        }

        @Override
        public boolean release(Grant grant) {
            return store.release(grant.name(), grant.owner().id());
        }

        @Override
        public void cancel(String name, Owner owner) {
            store.cancel(name, owner.id());
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            return Optional.ofNullable(store.inspect(name));
        }

        @Override
        public Set<Capability> capabilities() {
            Set<Capability> capabilities = EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION);
            if (store.isSessionBound()) {
                capabilities.add(Capability.SESSION_BOUND);
            }
            if (store.isFair()) {
                capabilities.add(Capability.FAIR);
                capabilities.add(Capability.INSPECT_WAITERS);
            }
            return capabilities;
        }

        @Override
        public AutoCloseable subscribe(String name, Runnable onChange) {
            return store.subscribe(name, onChange);
        }

        @Override
        public String describe() {
            return scheme + "://";
        }

        @Override
        public void close() {
        }
    }
}
