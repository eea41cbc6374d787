package io.locksmith.safety;

import io.locksmith.LockInfo;
import io.locksmith.redis.RedisLockProviderFactory;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;
import io.locksmith.spi.RenewRequest;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A deliberately broken store for the fault kit's self-test: the Redis provider, but a renewal that fails with a
 * store error (a time-out, a dead connection) answers "renewed", as a watchdog that swallows its errors would.
 * {@code overtrusting-redis://host:port}.
 */
public final class OverTrustingRedisFactory implements LockProviderFactory {

    static final String SCHEME = "overtrusting-redis";

    @Override
    public Set<String> schemes() {
        return Set.of(SCHEME);
    }

    @Override
    public LockProvider create(LockUri uri, ProviderContext context) {
        LockUri real = LockUri.parse(uri.raw().replaceFirst("^" + SCHEME, "redis"));
        LockProvider redis = new RedisLockProviderFactory().create(real, context);
        real.readParameters().forEach(uri::markRead);
        return new OverTrusting(redis);
    }

    /** Delegates everything; answers "renewed" when the store could not be asked. */
    private record OverTrusting(LockProvider redis) implements LockProvider {

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            return redis.tryAcquire(request);
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            try {
                return redis.renew(grant, ttl);
            } catch (RuntimeException storeError) {
                return true; // the flaw
            }
        }

        @Override
        public List<Boolean> renewAll(List<RenewRequest> requests) {
            try {
                return redis.renewAll(requests);
            } catch (RuntimeException storeError) {
                return requests.stream().map(request -> true).toList(); // the flaw
            }
        }

        @Override
        public boolean release(Grant grant) {
            return redis.release(grant);
        }

        @Override
        public void releaseAmbiguous(String name, Owner owner) {
            redis.releaseAmbiguous(name, owner);
        }

        @Override
        public void cancel(String name, Owner owner) {
            redis.cancel(name, owner);
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            return redis.inspect(name);
        }

        @Override
        public Set<Capability> capabilities() {
            return redis.capabilities();
        }

        @Override
        public Duration effectiveTtl(Duration requested) {
            return redis.effectiveTtl(requested);
        }

        @Override
        public AutoCloseable subscribe(String name, Runnable onChange) {
            return redis.subscribe(name, onChange);
        }

        @Override
        public String describe() {
            return "over-trusting " + redis.describe();
        }

        @Override
        public void close() {
            redis.close();
        }
    }
}
