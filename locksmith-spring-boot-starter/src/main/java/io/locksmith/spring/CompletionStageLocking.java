package io.locksmith.spring;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockException;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Holds the lock of a {@link Locked} method returning {@code CompletableFuture} or {@code CompletionStage} until the
 * stage it returns completes, through the asynchronous acquire: no thread waits for the lock.
 */
final class CompletionStageLocking {

    private CompletionStageLocking() {
    }

    /**
     * Starts the call: acquires asynchronously and returns at once. The method runs once the lease is granted: on the
     * calling thread if the grant came at once, else on {@code executor} (never on the lock client's threads, which
     * the method might block). The returned future completes as the method's stage does, after the release; cancelling
     * it cancels the wait, or is passed on to the method's stage, whose completion releases the lock.
     */
    static CompletableFuture<Object> call(AsyncLockedCall call, Executor executor) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        CompletableFuture<Lease> acquiring;
        DistributedLock lock;
        try {
            lock = call.lock();
        } catch (RuntimeException failure) {
            notObtained(call, failure, result);
            return result;
        }
        Runnable acquireEnded = LockedExecution.asyncAcquireReportedByCaller(lock.name());
        try {
            acquiring = lock.acquireAsync(call.waitTime());
        } catch (RuntimeException failure) {
            acquireEnded.run();
            notObtained(call, failure, result);
            return result;
        }
        acquiring.whenComplete((lease, failure) -> acquireEnded.run());
        result.whenComplete((ignored, failure) -> {
            if (failure instanceof CancellationException) {
                acquiring.cancel(false);
            }
        });
        boolean grantedAtOnce = acquiring.isDone();
        acquiring.whenComplete((lease, failure) -> {
            if (failure != null) {
                notObtained(call, AsyncLockedCall.unwrap(failure), result);
            } else if (result.isDone()) {
                // Cancelled by the caller as the lease came.
                release(call, lease, null);
            } else if (grantedAtOnce) {
                run(call, lease, result);
            } else {
                try {
                    executor.execute(() -> run(call, lease, result));
                } catch (RuntimeException rejected) {
                    release(call, lease, rejected).whenComplete((ignored, alsoFailed) ->
                            result.completeExceptionally(rejected));
                }
            }
        });
        return result;
    }

    private static void run(AsyncLockedCall call, Lease lease, CompletableFuture<Object> result) {
        if (result.isDone()) {
            release(call, lease, null);
            return;
        }
        Object returned;
        LockContext.push(lease);
        try {
            returned = call.proceed(lease);
        } catch (Throwable failure) {
            release(call, lease, failure).whenComplete((ignored, alsoFailed) -> result.completeExceptionally(failure));
            return;
        } finally {
            LockContext.pop();
        }
        CompletionStage<?> stage = returned == null ? CompletableFuture.completedFuture(null)
                : (CompletionStage<?>) returned;
        result.whenComplete((ignored, failure) -> {
            if (failure instanceof CancellationException) {
                cancel(stage);
            }
        });
        stage.whenComplete((value, failure) -> {
            Throwable cause = failure == null ? null : AsyncLockedCall.unwrap(failure);
            release(call, lease, cause).whenComplete((ignored, alsoFailed) -> {
                if (cause == null) {
                    result.complete(value);
                } else {
                    result.completeExceptionally(cause);
                }
            });
        });
    }

    /** Passes a cancel on; the lock stays held until the stage has completed (a CompletableFuture does at once). */
    private static void cancel(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().cancel(false);
        } catch (UnsupportedOperationException notCancellable) {
            // A stage without a future: it goes on, and holds the lock until it completes.
        }
    }

    private static void notObtained(AsyncLockedCall call, Throwable failure, CompletableFuture<Object> result) {
        if (!AsyncLockedCall.isNotObtained(failure)) {
            result.completeExceptionally(failure);
            return;
        }
        Object outcome;
        try {
            outcome = call.notObtained((LockException) failure);
        } catch (Throwable thrown) {
            result.completeExceptionally(thrown);
            return;
        }
        if (outcome instanceof CompletionStage<?> stage) {
            stage.whenComplete((value, stageFailure) -> {
                if (stageFailure == null) {
                    result.complete(value);
                } else {
                    result.completeExceptionally(AsyncLockedCall.unwrap(stageFailure));
                }
            });
        } else {
            result.complete(outcome);
        }
    }

    /**
     * Releases without ever cancelling the release (a release future cancelled before the client's thread runs it
     * would skip the store request). A failure is added to {@code workFailure}, or logged if the work succeeded.
     */
    private static CompletableFuture<Void> release(AsyncLockedCall call, Lease lease, Throwable workFailure) {
        CompletableFuture<Void> released = new CompletableFuture<>();
        lease.closeAsync().whenComplete((ignored, failure) -> {
            if (failure != null) {
                Throwable cause = AsyncLockedCall.unwrap(failure);
                if (workFailure != null) {
                    workFailure.addSuppressed(cause);
                } else {
                    LockedExecution.LOG.warn("lock '{}' could not be released after {} completed; it expires at its"
                            + " lease time", lease.lockName(), call.what(), cause);
                }
            }
            released.complete(null);
        });
        return released;
    }
}
