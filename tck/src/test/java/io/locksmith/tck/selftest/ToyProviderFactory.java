package io.locksmith.tck.selftest;

import io.locksmith.LockInfo;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
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

/** Serves one scheme with providers over one {@link ToyStore}; registered with {@code ProviderClientBuilder.factory(...)}. */
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
        return new ToyProvider(context);
    }

    final class ToyProvider implements LockProvider {
        private final ProviderContext context;
        /** A session-bound store's grants of this provider's session, by owner id. */
        private final java.util.Map<String, Grant> session = new java.util.concurrent.ConcurrentHashMap<>();

        ToyProvider(ProviderContext context) {
            this.context = context;
        }

        /** The store ends this provider's session: its locks go, and each holder is told (R9.13). */
        void endSession() {
            for (Grant grant : session.values()) {
                store.release(grant.name(), grant.owner().id());
                context.lossListener().lost(grant, "the toy store ended the session", null);
            }
            session.clear();
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            long token = store.tryAcquire(request.name(), request.owner(), request.ttl(), request.willWait());
            if (token < 0) {
                return Optional.empty();
            }
            Grant grant = new Grant(request.name(), request.owner(), token, request.ttl());
            if (store.isSessionBound()) {
                session.put(request.owner().id(), grant);
            }
            return Optional.of(grant);
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            return store.renew(grant.name(), grant.owner().id(), ttl);
        }

        @Override
        public boolean release(Grant grant) {
            session.remove(grant.owner().id());
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
        public java.util.List<LockInfo> list(String prefix) {
            return store.list(prefix);
        }

        @Override
        public Set<Capability> capabilities() {
            Set<Capability> capabilities = EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION);
            if (store.isSessionBound()) {
                capabilities.add(Capability.SESSION_BOUND);
            }
            if (store.hasAccessControl()) {
                capabilities.add(Capability.ACCESS_CONTROL);
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
