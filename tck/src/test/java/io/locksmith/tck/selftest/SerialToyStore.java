package io.locksmith.tck.selftest;

import io.locksmith.Capability;
import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * A correct {@link ToyStore} behind a single-threaded server: requests are served one at a time in arrival order and
 * each costs a fixed service time, as a single-threaded store (Redis) or one busy connection serves them. mem:// answers
 * in microseconds from any number of threads, so a client that lets every waiting thread make store requests does not
 * collapse on it; here the requests of a thousand waiters queue ahead of the holder's release, as they do on a real
 * store (R7.11). Release notification is the store's, called on the server's thread, as a pub/sub message would be.
 */
final class SerialToyStore {

    /** The service time of one request: a loopback round trip and a little work. */
    static final Duration SERVICE_TIME = Duration.ofNanos(200_000);

    private final ToyStore store = new ToyStore(Set.of(), false);
    /** One thread, which ends when idle: a kit instance per rule makes a store per rule, and none is closed. */
    private final ThreadPoolExecutor server = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "serial-toy-store");
                thread.setDaemon(true);
                return thread;
            });

    SerialToyStore() {
        server.allowCoreThreadTimeOut(true);
    }
    private final AtomicLong served = new AtomicLong();

    /** How many requests the server has served. */
    long served() {
        return served.get();
    }

    /**
     * Serves {@code request} after every request that came before it; the caller waits for the answer, as it would for
     * a reply on its connection (an interrupt is kept for afterwards: the request is out).
     */
    private <T> T serve(String name, Supplier<T> request) {
        Future<T> answer;
        try {
            answer = server.submit(() -> {
                LockSupport.parkNanos(SERVICE_TIME.toNanos());
                served.incrementAndGet();
                return request.get();
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new LockStoreException(name, "the serial toy store refused the request", e);
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return answer.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException runtime ? runtime
                            : new LockStoreException(name, "the serial toy store failed", e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Serves {@code scheme} with providers over this store. */
    LockProviderFactory factory(String scheme) {
        return new LockProviderFactory() {
            @Override
            public Set<String> schemes() {
                return Set.of(scheme);
            }

            @Override
            public LockProvider create(LockUri uri, ProviderContext context) {
                return new Provider(scheme);
            }
        };
    }

    private final class Provider implements LockProvider {
        private final String scheme;

        Provider(String scheme) {
            this.scheme = scheme;
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            long token = serve(request.name(), () -> store.tryAcquire(request.name(), request.owner(), request.ttl(),
                    request.willWait()));
            return token < 0 ? Optional.empty()
                    : Optional.of(new Grant(request.name(), request.owner(), token, request.ttl()));
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            return serve(grant.name(), () -> store.renew(grant.name(), grant.owner().id(), ttl));
        }

        @Override
        public boolean release(Grant grant) {
            return serve(grant.name(), () -> store.release(grant.name(), grant.owner().id()));
        }

        @Override
        public void cancel(String name, Owner owner) {
            serve(name, () -> {
                store.cancel(name, owner.id());
                return null;
            });
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            return Optional.ofNullable(serve(name, () -> store.inspect(name)));
        }

        @Override
        public AutoCloseable subscribe(String name, Runnable onChange) {
            return serve(name, () -> store.subscribe(name, onChange));
        }

        @Override
        public Set<Capability> capabilities() {
            return EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION);
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
