package io.locksmith.bench;

import io.locksmith.Lease;
import io.locksmith.LockClient;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * Locksmith through its asynchronous API (issue 28): {@code tryAcquireAsync(maxWait)} and {@link Lease#closeAsync()},
 * the bench's thread joining each future, so the scenarios measure what an asynchronous caller waits for, the
 * hand-over to and from the client's threads included. Compared with {@link LocksmithSubject} on the same URI.
 */
final class LocksmithAsyncSubject implements Subject {

    private final String label;
    private final Store store;
    private final IntFunction<String> uriForThreads;

    LocksmithAsyncSubject(String label, Store store, IntFunction<String> uriForThreads) {
        this.label = label;
        this.store = store;
        this.uriForThreads = uriForThreads;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public Store store() {
        return store;
    }

    @Override
    public boolean isLocksmith() {
        return true;
    }

    @Override
    public Contender open(int threads) {
        LockClient client = LockClient.open(uriForThreads.apply(threads));
        return new Contender() {
            @Override
            public Held acquire(String name, Duration maxWait) throws Exception {
                Optional<Lease> lease = join(client.lock(name).tryAcquireAsync(maxWait));
                if (lease.isEmpty()) {
                    throw new TimeoutException(label + " did not acquire " + name + " within " + maxWait);
                }
                Lease held = lease.get();
                return new Held() {
                    @Override
                    public void release() throws Exception {
                        join(held.closeAsync());
                    }

                    @Override
                    public Optional<Boolean> stillHeld() {
                        return Optional.of(held.isHeld());
                    }
                };
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    /** The future's value, or its failure as the blocking API would throw it (not wrapped). */
    private static <T> T join(java.util.concurrent.CompletableFuture<T> future) throws Exception {
        try {
            return future.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            throw (Error) cause;
        } catch (InterruptedException e) {
            future.cancel(true); // cancelling ends the wait and leaves nothing behind (DistributedLock)
            throw e;
        } catch (CancellationException e) {
            throw new IllegalStateException("the future was cancelled", e);
        }
    }
}
