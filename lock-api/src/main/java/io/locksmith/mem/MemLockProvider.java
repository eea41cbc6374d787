package io.locksmith.mem;

import io.locksmith.LockInfo;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Registry;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The {@code mem://} provider: the reference implementation of the SPI over a {@link MemStore}. */
final class MemLockProvider implements LockProvider {

    private final MemStore store;

    MemLockProvider(MemStore store) {
        this.store = store;
    }

    @Override
    public Optional<Grant> tryAcquire(AcquireRequest request) {
        long token = store.tryAcquire(request.name(), request.owner().id(), request.owner().holder(), request.ttl());
        return token < 0 ? Optional.empty() : Optional.of(new Grant(request.name(), request.owner(), token, request.ttl()));
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
    public Optional<LockInfo> inspect(String name) {
        return Optional.ofNullable(store.inspect(name));
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return store.list(prefix);
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION);
    }

    /**
     * A call only waits for the store's own monitor, held for a few map operations: it cannot block, so the
     * shared client calls it on the caller's thread (10 ms leaves room for a garbage-collection pause).
     */
    @Override
    public Optional<Duration> callTimeLimit() {
        return Optional.of(Duration.ofMillis(10));
    }

    @Override
    public AutoCloseable subscribe(String name, Runnable onChange) {
        return store.subscribe(name, onChange);
    }

    @Override
    public Optional<Registry> registry() {
        return Optional.of(new Registry() {
            @Override
            public void put(String key, String value, Duration ttl) {
                store.putRecord(key, value, ttl);
            }

            @Override
            public Map<String, String> list(String prefix) {
                return store.listRecords(prefix);
            }

            @Override
            public void remove(String key) {
                store.removeRecord(key);
            }
        });
    }

    @Override
    public String describe() {
        return store.toString();
    }

    @Override
    public void close() {
        // The store outlives its clients, as a server would.
    }
}
