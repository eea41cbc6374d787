package io.locksmith.tck.kits;

import io.locksmith.Lease;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.fail;

/** A thread acquiring a lock, watched from the rule ({@link KitContext#waiter}). */
final class Waiter {
    final Thread thread;
    final CompletableFuture<Lease> result = new CompletableFuture<>();
    volatile long acquiredAt;

    Waiter(String threadName, Supplier<Lease> acquire) {
        thread = new Thread(() -> {
            try {
                Lease lease = acquire.get();
                acquiredAt = System.nanoTime();
                result.complete(lease);
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }, threadName);
        thread.setDaemon(true);
    }

    /** Parked: waiting between attempts (or blocked in a store call). */
    boolean isParked() {
        Thread.State state = thread.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || result.isDone();
    }

    Lease lease(Duration bound) {
        try {
            return result.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException e) {
            throw new AssertionError("the waiter failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("the waiter did not get the lock within " + bound, e);
        }
    }

    /** The exception the waiter ended with, or fails if it got a lease or is still waiting. */
    Throwable outcome(Duration bound) {
        try {
            Lease lease = result.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            lease.close();
            return fail("the waiter got the lock instead of failing");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError("the waiter was still waiting " + bound + " after being interrupted", e);
        }
    }
}
