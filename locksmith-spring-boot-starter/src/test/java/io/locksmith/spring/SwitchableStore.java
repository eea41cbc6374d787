package io.locksmith.spring;

import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;
import io.locksmith.mem.MemLockProviderFactory;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.net.ConnectException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@code mem://} store that can be taken down and brought back: while down, opening a client and every store
 * call fail with a {@link LockStoreException} whose cause is a refused connection, as a stopped server does.
 */
final class SwitchableStore implements LockProviderFactory {

    private final AtomicBoolean up = new AtomicBoolean(true);
    final AtomicInteger openAttempts = new AtomicInteger();

    void down() {
        up.set(false);
    }

    void up() {
        up.set(true);
    }

    @Override
    public Set<String> schemes() {
        return Set.of("mem");
    }

    @Override
    public LockProvider create(LockUri uri, ProviderContext context) {
        openAttempts.incrementAndGet();
        check();
        LockProvider mem = new MemLockProviderFactory().create(uri, context);
        return new LockProvider() {
            @Override
            public Optional<Grant> tryAcquire(AcquireRequest request) {
                check();
                return mem.tryAcquire(request);
            }

            @Override
            public boolean renew(Grant grant, Duration ttl) {
                check();
                return mem.renew(grant, ttl);
            }

            @Override
            public boolean release(Grant grant) {
                check();
                return mem.release(grant);
            }

            @Override
            public Optional<LockInfo> inspect(String name) {
                check();
                return mem.inspect(name);
            }

            @Override
            public AutoCloseable subscribe(String name, Runnable onChange) {
                return mem.subscribe(name, onChange);
            }

            @Override
            public Set<Capability> capabilities() {
                return mem.capabilities();
            }

            @Override
            public String describe() {
                return "switchable " + mem.describe();
            }

            @Override
            public void close() {
                mem.close();
            }
        };
    }

    private void check() {
        if (!up.get()) {
            throw new LockStoreException("switchable store is down", new ConnectException("Connection refused"));
        }
    }
}
