package io.locksmith.spring;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockException;
import io.locksmith.reactor.ReactiveLocks;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Holds the lock of a {@link Locked} method returning {@code Mono} or {@code Flux} (or of a Kotlin suspend function,
 * which Spring AOP runs as one) for the lifetime of what it returns, through {@link ReactiveLocks}. Loaded only when
 * such a method exists, which needs Reactor and locksmith-reactor.
 */
final class ReactiveLocking {

    private ReactiveLocking() {
    }

    /**
     * A {@code Mono} that acquires on subscription, then runs the method (so nothing it does eagerly happens before
     * the lock is held) and holds the lock until the Mono it returned ends.
     */
    static Mono<Object> mono(AsyncLockedCall call) {
        return Mono.defer(() -> {
            AtomicBoolean obtained = new AtomicBoolean();
            AtomicReference<Runnable> acquireEnded = new AtomicReference<>(() -> { });
            return Mono.defer(() -> {
                        DistributedLock lock = call.lock();
                        acquireEnded.set(LockedExecution.asyncAcquireReportedByCaller(lock.name()));
                        return ReactiveLocks.<Object>withLock(lock, call.waitTime(), lease -> {
                            obtained.set(true);
                            acquireEnded.get().run();
                            return Mono.from(publisher(call, lease));
                        });
                    })
                    .doFinally(signal -> acquireEnded.get().run())
                    .onErrorResume(failure -> !obtained.get() && AsyncLockedCall.isNotObtained(failure),
                            failure -> Mono.defer(() -> Mono.from(outcome(call, (LockException) failure))));
        });
    }

    /** As {@link #mono}, for a {@code Flux}: the lock is held until its last element, error or cancel. */
    static Flux<Object> flux(AsyncLockedCall call) {
        return Flux.defer(() -> {
            AtomicBoolean obtained = new AtomicBoolean();
            AtomicReference<Runnable> acquireEnded = new AtomicReference<>(() -> { });
            return Flux.defer(() -> {
                        DistributedLock lock = call.lock();
                        acquireEnded.set(LockedExecution.asyncAcquireReportedByCaller(lock.name()));
                        return ReactiveLocks.<Object>withLockMany(lock, call.waitTime(), lease -> {
                            obtained.set(true);
                            acquireEnded.get().run();
                            return publisher(call, lease);
                        });
                    })
                    .doFinally(signal -> acquireEnded.get().run())
                    .onErrorResume(failure -> !obtained.get() && AsyncLockedCall.isNotObtained(failure),
                            failure -> Flux.defer(() -> outcome(call, (LockException) failure)));
        });
    }

    @SuppressWarnings("unchecked")
    private static Publisher<Object> publisher(AsyncLockedCall call, Lease lease) {
        Object returned;
        LockContext.push(lease);
        try {
            returned = call.proceed(lease);
        } catch (Throwable failure) {
            return Mono.error(failure);
        } finally {
            LockContext.pop();
        }
        return returned == null ? Mono.empty() : (Publisher<Object>) returned;
    }

    /** The failure strategy's outcome as a publisher: a handler's Mono or Flux, a value (suspend functions), or none. */
    @SuppressWarnings("unchecked")
    private static Publisher<Object> outcome(AsyncLockedCall call, LockException cause) {
        Object outcome = call.notObtained(cause);
        if (outcome == null) {
            return Mono.empty();
        }
        return outcome instanceof Publisher<?> publisher ? (Publisher<Object>) publisher : Mono.just(outcome);
    }
}
