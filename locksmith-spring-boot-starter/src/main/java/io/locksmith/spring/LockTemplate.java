package io.locksmith.spring;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockException;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.LockTimeoutException;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Runs code under a distributed lock where an annotation does not fit (the name is computed in the middle of a
 * method, the lock guards part of it), as {@code TransactionTemplate} does for transactions:
 * <pre>{@code
 * Receipt receipt = lockTemplate.executeWithLock("stock:" + sku, Duration.ofSeconds(3), () -> {
 *     long token = LockContext.currentFencingToken();   // or take the lease: lease -> lease.fencingToken()
 *     return stock.deduct(sku, quantity, token);
 * });
 * }</pre>
 * The auto-configured bean uses the application's {@link LockClient}. While the callback runs, its lease is
 * {@link LockContext#currentLease()} on the calling thread, exactly as in a {@link Locked @Locked} method (and a
 * nested {@code @Locked} method or template call with the same name re-enters it). The lock is released when the
 * callback returns or throws. A lock that is not obtained is reported by one WARN line and thrown: the problem
 * details of a web application map it to 409 or 503. Thread-safe.
 */
public final class LockTemplate {

    private final LockClient client;

    /**
     * @throws NullPointerException if {@code client} is null
     */
    public LockTemplate(LockClient client) {
        this.client = Objects.requireNonNull(client, "client cannot be null");
    }

    /**
     * Acquires {@code name} (waiting at most {@code wait}), runs {@code callback} holding it and releases it.
     *
     * @return the callback's result
     * @throws NullPointerException       if an argument is null
     * @throws IllegalArgumentException   if {@code name} is not a valid lock name or {@code wait} is negative
     * @throws LockTimeoutException       if the lock stayed busy for the whole wait; the callback did not run
     * @throws LockStoreException         if the store failed or does not answer; the callback did not run
     * @throws io.locksmith.LockInterruptedException if the thread was interrupted while waiting (the flag is set)
     * @throws RuntimeException           whatever the callback throws, after the lock was released
     */
    public <T> T executeWithLock(String name, Duration wait, LockCallback<T> callback) {
        return execute(name, wait, null, callback);
    }

    /**
     * As {@link #executeWithLock(String, Duration, LockCallback)}, for a callback that takes no lease (it can read
     * {@link LockContext#currentLease()}).
     */
    public <T> T executeWithLock(String name, Duration wait, Supplier<T> callback) {
        Objects.requireNonNull(callback, "callback cannot be null");
        return execute(name, wait, null, lease -> callback.get());
    }

    /**
     * As {@link #executeWithLock(String, Duration, LockCallback)} with these lock options instead of the client's
     * defaults (lease time, renewal, maximum hold).
     *
     * @throws IllegalArgumentException also if the store cannot honour the options
     */
    public <T> T executeWithLock(String name, Duration wait, LockOptions options, LockCallback<T> callback) {
        return execute(name, wait, Objects.requireNonNull(options, "options cannot be null"), callback);
    }

    /** As {@link #executeWithLock(String, Duration, LockCallback)}, for work without a result. */
    public void runWithLock(String name, Duration wait, Runnable work) {
        Objects.requireNonNull(work, "work cannot be null");
        execute(name, wait, null, lease -> {
            work.run();
            return null;
        });
    }

    private <T> T execute(String name, Duration wait, LockOptions options, LockCallback<T> callback) {
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(wait, "wait cannot be null");
        Objects.requireNonNull(callback, "callback cannot be null");
        Lease lease;
        try {
            lease = LockedExecution.acquire(client, name, options, wait);
        } catch (LockTimeoutException | LockStoreException notObtained) {
            LockedExecution.logFailure("LockTemplate", name, wait, notObtained,
                    "threw " + notObtained.getClass().getSimpleName(), false);
            throw notObtained;
        }
        try {
            @SuppressWarnings("unchecked")
            T result = (T) LockedExecution.runHolding(lease, "the LockTemplate callback",
                    () -> callback.doWithLock(lease));
            return result;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable checked) {
            // A LockCallback declares no checked exception; one can only come from a sneaky throw.
            throw new UndeclaredThrowableException(checked);
        }
    }

    @Override
    public String toString() {
        return "LockTemplate[" + client.describe() + "]";
    }
}
