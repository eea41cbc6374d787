package io.locksmith.lockctl.broken;

import io.locksmith.LockInfo;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code brokenlock://}: a custom backend found by ServiceLoader, as a third party's jar would be, with the
 * post-mortem's bug: release deletes the lock whoever holds it. {@code lockctl tck} must fail it.
 */
public final class BrokenLockProviderFactory implements LockProviderFactory {

    @Override
    public Set<String> schemes() {
        return Set.of("brokenlock");
    }

    @Override
    public LockProvider create(LockUri uri, ProviderContext context) {
        return new BrokenProvider();
    }

    private record Entry(String ownerId, io.locksmith.HolderIdentity holder, long token, long expiresAt) {
    }

    private static final class BrokenProvider implements LockProvider {
        private static final Map<String, Entry> LOCKS = new ConcurrentHashMap<>();
        private static final AtomicLong TOKENS = new AtomicLong();

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            long now = System.nanoTime();
            Entry mine = new Entry(request.owner().id(), request.owner().holder(), TOKENS.incrementAndGet(),
                    now + request.ttl().toNanos());
            Entry result = LOCKS.compute(request.name(), (name, current) ->
                    current == null || now >= current.expiresAt() ? mine : current);
            return result == mine ? Optional.of(new Grant(request.name(), request.owner(), mine.token(), request.ttl()))
                    : Optional.empty();
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            long now = System.nanoTime();
            Entry renewed = LOCKS.computeIfPresent(grant.name(), (name, current) ->
                    current.ownerId().equals(grant.owner().id()) && now < current.expiresAt()
                            ? new Entry(current.ownerId(), current.holder(), current.token(), now + ttl.toNanos()) : current);
            return renewed != null && renewed.ownerId().equals(grant.owner().id());
        }

        @Override
        public boolean release(Grant grant) {
            return LOCKS.remove(grant.name()) != null;   // the bug: no owner check
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            Entry entry = LOCKS.get(name);
            long now = System.nanoTime();
            if (entry == null || now >= entry.expiresAt()) {
                return Optional.empty();
            }
            return Optional.of(new LockInfo(name, entry.holder(), entry.token(), Duration.ofNanos(entry.expiresAt() - now), null));
        }

        @Override
        public Set<Capability> capabilities() {
            return EnumSet.of(Capability.FENCING);
        }

        @Override
        public String describe() {
            return "brokenlock://";
        }

        @Override
        public void close() {
        }
    }
}
