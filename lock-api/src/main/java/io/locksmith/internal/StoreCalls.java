package io.locksmith.internal;

import io.locksmith.LockStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs provider calls under the caller's time bound. A store client can block far longer than any bound the
 * caller was promised (ZooKeeper's retries while the server is gone, a frozen server that keeps the connection
 * open), and a blocking socket read cannot be interrupted; so the call runs on a pooled thread and the caller
 * waits for it at most until its bound. A call that outlives its bound goes on in the background, and what it
 * returns late is handed to a clean-up (a grant nobody waits for any more is released, owner-checked).
 *
 * <p>The hand-off wakes a pool thread and then the caller again: on a store a few tens of microseconds away that
 * is a large part of a call (docs/PERFORMANCE.md). A provider whose transport ends each call on its own within a
 * known time ({@link io.locksmith.spi.LockProvider#callTimeLimit()}) is called on the caller's thread whenever that
 * time fits in the caller's bound: the bound then holds without a second thread.
 *
 * <p>At most {@code maxInFlight} provider calls made here are in flight at once ({@link
 * io.locksmith.spi.LockProvider#maxConcurrentCalls()}, or the URI's {@code maxInFlight}): a caller waits for its turn
 * in arrival order, within its own bound, so that thousands of callers on one client never make the store or the
 * provider's pool refuse the client's own traffic. A call abandoned at its bound keeps its turn until it ends: the
 * store is still serving it. The renewal batch does not go through here: there is one at a time per client, and it
 * must not queue behind acquire attempts while leases run out.
 */
final class StoreCalls implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StoreCalls.class);
    /** How long the idle threads of the pool stay: they serve the next calls without a thread start. */
    private static final long KEEP_ALIVE_SECONDS = 30;

    /** A bound that a direct call cannot fit in: the provider stated no limit. */
    static final long NO_LIMIT = Long.MAX_VALUE;

    private final ThreadPoolExecutor executor;
    private final String store;
    /** The longest a provider call can take, as the provider promises it; {@link #NO_LIMIT} if it promises none. */
    private final long callLimitNanos;
    /** Told the outcome of every provider call made here, a late one included: the client's outage knowledge. */
    private final StoreOutage outage;
    /** The turns of the calls in flight: fair, so that a caller waiting for one is served in arrival order. */
    private final Semaphore turns;
    private final int maxInFlight;

    /**
     * @param callLimitNanos the provider's {@link io.locksmith.spi.LockProvider#callTimeLimit()}, or {@link #NO_LIMIT}
     */
    StoreCalls(String threadPrefix, String store, long callLimitNanos) {
        this(threadPrefix, store, callLimitNanos, new StoreOutage(store), Integer.MAX_VALUE);
    }

    /**
     * @param outage      told the outcome of every call, late ones included
     * @param maxInFlight the most provider calls made here that may be in flight at once, at least 1
     */
    StoreCalls(String threadPrefix, String store, long callLimitNanos, StoreOutage outage, int maxInFlight) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1, was " + maxInFlight);
        }
        this.store = store;
        this.outage = outage;
        this.callLimitNanos = callLimitNanos;
        this.maxInFlight = maxInFlight;
        this.turns = new Semaphore(maxInFlight, true);
        AtomicInteger count = new AtomicInteger();
        // One thread per call in flight, as with direct calls; a dead store leaves at most one stuck thread per
        // caller and per abandoned call, each ending at the provider's own time-out.
        this.executor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS,
                new SynchronousQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, threadPrefix + "-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
    }

    /**
     * Calls {@code call} and waits for it at most {@code boundNanos}.
     *
     * @param lockName   for the error message, or null
     * @param what       what the call does, for the error message ("acquire", "inspect")
     * @param lateResult receives the result of a call that finished after the caller stopped waiting; may be null
     * @throws LockStoreException   if the call did not finish within the bound (it goes on in the background)
     * @throws RuntimeException     what the call threw
     * @throws InterruptedException if the caller was interrupted while waiting: the interrupt is passed on to the
     *                              call, as if the caller had made it; what the call then threw within a short
     *                              grace is attached as suppressed, else it goes on in the background and its late
     *                              result goes to {@code lateResult}
     */
    <T> T call(String lockName, String what, Supplier<T> call, long boundNanos, Consumer<T> lateResult)
            throws InterruptedException {
        return call(lockName, what, call, boundNanos, lateResult, null);
    }

    /**
     * Like {@link #call(String, String, Supplier, long, Consumer)}, and a call that failed after the caller stopped
     * waiting for it hands its failure to {@code lateFailure} (may be null: the failure is logged).
     */
    <T> T call(String lockName, String what, Supplier<T> call, long boundNanos, Consumer<T> lateResult,
               Consumer<Throwable> lateFailure) throws InterruptedException {
        long deadline = System.nanoTime() + Math.max(0, boundNanos);
        if (executor.isShutdown()) {
            throw new LockStoreException(lockName, "the lock client on " + store + " is closed", null);
        }
        // A turn free at once (in arrival order: the timed form respects the fair queue) costs the caller no wait, so
        // the call keeps its whole bound. Callers give the command time-out exactly (a release, most attempts) so that
        // a provider whose limit is that time-out is called on this thread; the bound less the nanoseconds spent here
        // would never fit it, and every call would hop to a pool thread and back (two thread wake-ups per call: Redis
        // many names at 0.31 of the minimal lock's throughput, docs/PERFORMANCE.md).
        boolean waitedForTurn = !turns.tryAcquire(0, TimeUnit.NANOSECONDS);
        if (waitedForTurn && !turns.tryAcquire(Math.max(0, boundNanos), TimeUnit.NANOSECONDS)) {
            throw new LockStoreException(lockName, store + " did not answer " + what + " within "
                    + TimeUnit.NANOSECONDS.toMillis(boundNanos) + "ms: the client's " + maxInFlight + " store calls in"
                    + " flight (maxInFlight) took the whole bound", new TimeoutException("no turn among the calls in"
                    + " flight"));
        }
        boolean turnHandedOn = false;
        try {
            long remaining = waitedForTurn ? deadline - System.nanoTime() : Math.max(0, boundNanos);
            Supplier<T> reported = reported(call);
            if (fitsDirectly(remaining) && !Thread.currentThread().isInterrupted()) {
                // A caller with its interrupt flag set goes through the pool below, which answers it at once.
                return reported.get();
            }
            Running<T> running = new Running<>(() -> {
                try {
                    return reported.get();
                } finally {
                    turns.release();
                }
            });
            CompletableFuture<T> future;
            try {
                future = CompletableFuture.supplyAsync(running, executor);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                throw new LockStoreException(lockName, "the lock client on " + store + " is closed", e);
            }
            turnHandedOn = true;
            return awaitCall(future, running, lockName, what, remaining, boundNanos, lateResult, lateFailure);
        } finally {
            if (!turnHandedOn) {
                turns.release();
            }
        }
    }

    private <T> T awaitCall(CompletableFuture<T> future, Running<T> running, String lockName, String what,
                            long remainingNanos, long boundNanos, Consumer<T> lateResult,
                            Consumer<Throwable> lateFailure) throws InterruptedException {
        try {
            return future.get(Math.max(0, remainingNanos), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        } catch (TimeoutException e) {
            abandon(future, lockName, what, lateResult, lateFailure);
            throw new LockStoreException(lockName, store + " did not answer " + what + " within "
                    + TimeUnit.NANOSECONDS.toMillis(boundNanos) + "ms", e);
        } catch (InterruptedException e) {
            running.interrupt();
            Throwable failure = awaitFailure(future, DefaultDistributedLock.CLEANUP_GRACE_NANOS);
            if (failure != null) {
                e.addSuppressed(failure);
            } else if (!future.isDone()) {
                abandon(future, lockName, what, lateResult, lateFailure);
            } else if (lateResult != null) {
                lateResult.accept(future.join());
            }
            throw e;
        } catch (CancellationException e) {
            throw new LockStoreException(lockName, store + ": " + what + " was cancelled", e);
        }
    }

    /**
     * Calls {@code call} without being interruptible, waiting at most {@code boundNanos}: for clean-ups that must
     * be tried even when the caller was interrupted. Returns false if the call outlived the bound (it goes on in
     * the background, and its failure is logged).
     *
     * @throws RuntimeException what the call threw within the bound
     */
    boolean runQuietlyWithin(String lockName, String what, Runnable call, long boundNanos) {
        Supplier<Void> reported = reported(() -> {
            call.run();
            return null;
        });
        long deadline = System.nanoTime() + Math.max(0, boundNanos);
        // The turn is waited for on the pool thread, which the caller waits for within the bound.
        Runnable run = () -> inTurn(reported::get);
        CompletableFuture<Void> future;
        try {
            future = CompletableFuture.runAsync(run, executor);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            run.run();
            return true;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    return true;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw rethrow(e.getCause());
                } catch (TimeoutException e) {
                    future.whenComplete((ignored, failure) -> {
                        if (failure != null) {
                            LOG.debug("{} of lock '{}' on {} failed in the background", what, lockName, store, failure);
                        }
                    });
                    return false;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Runs {@code task} on a pool thread, for a caller that does not wait for it (the asynchronous API).
     *
     * @return the task's future; completed exceptionally with {@link LockStoreException} if the client is closed
     */
    CompletableFuture<Void> runAsync(String lockName, Runnable task) {
        try {
            return CompletableFuture.runAsync(task, executor);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new LockStoreException(lockName, "the lock client on " + store
                    + " is closed", e));
        }
    }

    /** The pool's executor, for tasks that run a step of an asynchronous acquire. */
    java.util.concurrent.Executor executor() {
        return executor;
    }

    /** Runs the provider call {@code call} in the background, in its turn among the calls in flight; failures are logged. */
    void runInBackground(String lockName, String what, Runnable call) {
        try {
            CompletableFuture.runAsync(() -> inTurn(call), executor).whenComplete((ignored, failure) -> {
                if (failure != null) {
                    LOG.debug("{} of lock '{}' on {} failed in the background", what, lockName, store, failure);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            LOG.debug("{} of lock '{}' skipped: the client is closed", what, lockName);
        }
    }

    /**
     * Runs {@code call} in a turn among the calls in flight, waiting for one as long as it takes: for a pool thread
     * that runs a provider call nobody waits for (every call in flight ends at the provider's own time-out).
     */
    private void inTurn(Runnable call) {
        turns.acquireUninterruptibly();
        try {
            call.run();
        } finally {
            turns.release();
        }
    }

    /** The most provider calls made here that are in flight at once. */
    int maxInFlight() {
        return maxInFlight;
    }

    /** Provider calls made here that are in flight now (each holds a turn until it ends). */
    int inFlight() {
        return maxInFlight - turns.availablePermits();
    }

    /**
     * {@code call}, telling {@link #outage} how it ended, whenever it ends: a call the caller stopped waiting for
     * reports too, so that a store whose client fails a refused connection only after its own retries (etcd's
     * gRPC channel, a pool's connect time-out) is still known to be down.
     */
    private <T> Supplier<T> reported(Supplier<T> call) {
        return () -> {
            long start = System.nanoTime();
            T result;
            try {
                result = call.get();
            } catch (RuntimeException | Error e) {
                outage.failed(start, e);
                throw e;
            }
            outage.succeeded(start);
            return result;
        };
    }

    /** Whether a call within {@code boundNanos} can run on the caller's thread: the provider's limit fits in it. */
    private boolean fitsDirectly(long boundNanos) {
        return callLimitNanos != NO_LIMIT && callLimitNanos <= boundNanos;
    }

    /** What the call threw if it ended with an error within {@code nanos}; waits without being interruptible. */
    private static Throwable awaitFailure(CompletableFuture<?> future, long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (true) {
            try {
                future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                return null;
            } catch (InterruptedException again) {
                // Already being handled: the caller's flag is set again by its handler.
            } catch (ExecutionException failed) {
                return failed.getCause();
            } catch (TimeoutException | CancellationException stillRunning) {
                return null;
            }
        }
    }

    /** A call on a pool thread that the caller can interrupt while, and only while, it runs. */
    private static final class Running<T> implements Supplier<T> {
        private final Supplier<T> call;
        private Thread runner;
        private boolean interrupted;

        Running(Supplier<T> call) {
            this.call = call;
        }

        @Override
        public T get() {
            synchronized (this) {
                runner = Thread.currentThread();
                if (interrupted) {
                    runner.interrupt();
                }
            }
            try {
                return call.get();
            } finally {
                synchronized (this) {
                    runner = null;
                    // An interrupt meant for this call must not reach the next task of the pool thread.
                    Thread.interrupted();
                }
            }
        }

        synchronized void interrupt() {
            interrupted = true;
            if (runner != null) {
                runner.interrupt();
            }
        }
    }

    private <T> void abandon(CompletableFuture<T> future, String lockName, String what, Consumer<T> lateResult,
                             Consumer<Throwable> lateFailure) {
        future.whenComplete((result, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                LOG.debug("abandoned {} of lock '{}' on {} ended with an error", what, lockName, store, cause);
                if (lateFailure != null) {
                    try {
                        lateFailure.accept(cause);
                    } catch (RuntimeException e) {
                        if (StoreOutage.isUnreachable(e) || StoreOutage.isTimeout(e)) {
                            // The store is down or does not answer (frozen, cut off): the clean-up is retried by the
                            // lock's TTL; the caller's own error already said so once.
                            LOG.debug("clean-up after the late failure of {} of lock '{}' on {} failed", what,
                                    lockName, store, e);
                        } else {
                            LOG.warn("clean-up after the late failure of {} of lock '{}' on {} failed", what,
                                    lockName, store, e);
                        }
                    }
                }
            } else if (lateResult != null) {
                try {
                    lateResult.accept(result);
                } catch (RuntimeException e) {
                    LOG.warn("clean-up after the late answer to {} of lock '{}' on {} failed", what, lockName, store, e);
                }
            }
        });
    }

    private static RuntimeException rethrow(Throwable cause) {
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(cause);
    }

    /** Stops taking calls; calls in flight end on their own. */
    @Override
    public void close() {
        executor.shutdown();
    }
}
