package io.locksmith.spring;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockException;
import io.locksmith.LockStoreException;
import io.locksmith.LockTimeoutException;

import java.time.Duration;
import java.util.concurrent.CompletionException;

/** One call of a {@link Locked} method that returns an asynchronous result, as the asynchronous paths see it. */
interface AsyncLockedCall {

    /**
     * The lock to take.
     *
     * @throws LockStoreException if the client cannot make locks yet (a lazy start before the store answered)
     */
    DistributedLock lock();

    /** How long to wait for it. */
    Duration waitTime();

    /** Runs the method with {@code lease} as {@link LockContext#currentLease()}, returning what it returned. */
    Object proceed(Lease lease) throws Throwable;

    /**
     * The outcome of a call whose lock was not obtained, under the method's failure strategy (logged once).
     *
     * @return what the call's result completes with: null for nothing, or the failure handler's result
     * @throws LockException the cause, under {@link LockedMethod.FailureStrategy#THROW}
     */
    Object notObtained(LockException cause);

    /** {@code OrderService.ship(..)}, for log lines. */
    String what();

    /** Whether {@code failure} says the lock was not obtained: busy for the whole wait, or a store error. */
    static boolean isNotObtained(Throwable failure) {
        return failure instanceof LockTimeoutException || failure instanceof LockStoreException;
    }

    /** The failure a future completed with, without CompletableFuture's wrapper. */
    static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
