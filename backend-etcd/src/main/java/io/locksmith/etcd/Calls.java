package io.locksmith.etcd;

import io.locksmith.LockInterruptedException;
import io.locksmith.LockStoreException;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waits for jetcd's futures with a bound, turning failures into {@link LockStoreException}s that name the store. */
final class Calls {

    private Calls() {
    }

    /**
     * @param lockName the lock concerned, or {@code null}
     * @param what     what was asked, for the message, e.g. "acquire"
     * @throws LockStoreException       if the call failed or did not answer within {@code timeout}
     * @throws LockInterruptedException if the thread was interrupted (the flag is restored)
     */
    static <T> T await(CompletableFuture<T> future, Duration timeout, String store, String lockName, String what) {
        try {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(lockName, e);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new LockStoreException(lockName, store + " did not answer " + what + " within " + timeout, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new LockStoreException(lockName, store + " failed to " + what + ": " + cause.getMessage(), cause);
        }
    }
}
