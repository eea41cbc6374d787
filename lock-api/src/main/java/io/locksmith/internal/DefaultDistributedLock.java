package io.locksmith.internal;

import io.locksmith.DistributedLock;
import io.locksmith.HolderIdentity;
import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockEvent;
import io.locksmith.LockException;
import io.locksmith.LockInfo;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockLostException;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.LockTimeoutException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Owner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/** A named lock of a {@link DefaultLockClient}: the acquire and wait loop. */
final class DefaultDistributedLock implements DistributedLock {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultDistributedLock.class);
    private static final long FOREVER = -1;
    /** Grants that came too late to use, in a row, before the acquire gives up saying the lease is too short. */
    private static final int MAX_LATE_GRANTS = 3;
    /** How long a clean-up after a failed or ended wait may add to the caller's bound; then it goes on alone. */
    static final long CLEANUP_GRACE_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(200);
    /** The least time given to one store call of a bounded wait. */
    private static final long MIN_CALL_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100);

    private final DefaultLockClient client;
    private final String name;
    private final LockOptions options;
    private final Duration ttl;

    DefaultDistributedLock(DefaultLockClient client, String name, LockOptions options, Duration ttl) {
        this.client = client;
        this.name = name;
        this.options = options;
        this.ttl = ttl;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LockOptions options() {
        return options;
    }

    @Override
    public Lease acquire() {
        return attempt(FOREVER, true).orElseThrow(() -> new IllegalStateException("unbounded wait returned no lease"));
    }

    @Override
    public Lease acquire(Duration maxWait) {
        long waitNanos = waitNanos(maxWait);
        return attempt(waitNanos, true).orElseThrow(() -> new LockTimeoutException(name, maxWait));
    }

    @Override
    public Optional<Lease> tryAcquire() {
        return attempt(0, true);
    }

    @Override
    public Optional<Lease> tryAcquire(Duration maxWait) {
        return attempt(waitNanos(maxWait), true);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration maxWait) {
        long waitNanos = waitNanos(maxWait);
        client.ensureOpen();
        CompletableFuture<Lease> result = new CompletableFuture<>();
        new AsyncDriver<>(new Acquisition(waitNanos, null), result, lease -> {
            if (lease.isPresent()) {
                return result.complete(lease.get());
            }
            result.completeExceptionally(new LockTimeoutException(name, maxWait));
            return true;
        }).start();
        return result;
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration maxWait) {
        long waitNanos = waitNanos(maxWait);
        client.ensureOpen();
        CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
        new AsyncDriver<>(new Acquisition(waitNanos, null), result, result::complete).start();
        return result;
    }

    /**
     * As {@link #tryAcquireAsync(Duration)}, for an acquire made on behalf of {@code holder}: a primitive's store lock
     * taken on one of the client's threads for the caller who asked for the primitive, whose identity it must show.
     */
    CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration maxWait, HolderIdentity holder) {
        long waitNanos = waitNanos(maxWait);
        client.ensureOpen();
        CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
        new AsyncDriver<>(new Acquisition(waitNanos, null, holder), result, result::complete).start();
        return result;
    }

    private long waitNanos(Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait cannot be null");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, was " + maxWait + " [lock '" + name + "']");
        }
        try {
            return maxWait.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * A blocking acquire: steps of an {@link Acquisition} on the caller's thread, which parks between them.
     *
     * @param maxWaitNanos 0 for one attempt, {@link #FOREVER} for no bound, else the bound
     */
    private Optional<Lease> attempt(long maxWaitNanos, boolean blocking) {
        client.ensureOpen();
        boolean willWait = maxWaitNanos != 0;
        if (willWait && Thread.interrupted()) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(name, new InterruptedException("interrupted before waiting"));
        }
        if (blocking && options.isReentrant()) {
            Optional<Lease> reentered = reenter();
            if (reentered.isPresent()) {
                return reentered;
            }
        }
        Acquisition acquisition = new Acquisition(maxWaitNanos, Thread.currentThread());
        try {
            while (true) {
                Step step = acquisition.step();
                if (step.done()) {
                    return step.lease();
                }
                if (step.wakeable() && acquisition.waiter != null) {
                    acquisition.waiter.await(step.pauseNanos());
                } else if (step.pauseNanos() > 0) {
                    pauseUnlessOutage(acquisition, step.pauseNanos());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.events().emit(LockEvent.Type.ACQUIRE_FAILED, name, -1, acquisition.owner.holder(),
                    System.nanoTime() - acquisition.start, e);
            throw new LockInterruptedException(name, e);
        } finally {
            acquisition.end();
        }
    }

    /**
     * A pause that a release does not end (a store in trouble is not asked again at once), but an outage does: the
     * waiter's signal then comes from {@link StoreOutage}, and the next step ends the wait with the store's error.
     */
    private void pauseUnlessOutage(Acquisition acquisition, long nanos) throws InterruptedException {
        if (acquisition.waiter == null) {
            java.util.concurrent.TimeUnit.NANOSECONDS.sleep(nanos);
            return;
        }
        long end = System.nanoTime() + nanos;
        long left = nanos;
        while (left > 0 && !client.outage.isKnown()) {
            acquisition.waiter.await(left);
            left = end - System.nanoTime();
        }
    }

    /**
     * What an acquisition does next: end with {@code lease} (present or empty), or pause for {@code pauseNanos}
     * (woken early by a signal of its waiter when {@code wakeable}) and take another step.
     */
    private record Step(boolean done, Optional<Lease> lease, long pauseNanos, boolean wakeable) {
        static Step finished(Optional<Lease> lease) {
            return new Step(true, lease, 0, false);
        }

        /** Until a signal (the lock may be free, this waiter's turn came) or {@code nanos}. */
        static Step untilSignal(long nanos) {
            return new Step(false, Optional.empty(), nanos, true);
        }

        /** For {@code nanos}, whatever happens: a store in trouble is not asked again at a release's signal. */
        static Step pause(long nanos) {
            return new Step(false, Optional.empty(), nanos, false);
        }
    }

    /**
     * One acquire from its first attempt to its end: the one loop of attempts, waits, retries after store errors and
     * clean-up, whether a thread waits for it ({@link #attempt}) or nobody does ({@link AsyncDriver}). Steps never
     * run at the same time; only {@link #step()} and {@link #end()} touch the state.
     */
    private final class Acquisition {
        final long maxWaitNanos;
        final boolean willWait;
        /** The thread of a blocking acquire, bound to its lease; null for an asynchronous one. */
        final Thread thread;
        final long start = System.nanoTime();
        final LockProvider provider = client.provider();
        final Backoff backoff = new Backoff(client.waitQueues.isNotifying(), client.maxPollNanos);
        Owner owner;
        /** Whether {@link #owner} made a waiting attempt: only then may the store keep a queue place of it. */
        boolean ownerQueued;
        // Store errors and late grants back off from their own sequence: a release notification must not wake a retry
        // against a failing or slow store at once.
        Backoff troubleBackoff;
        LockException lastStoreError;
        int lateGrants;
        /** After a late grant's pause: attempt again only if the wait has time left. */
        boolean retryOnlyWithinTheWait;
        /** This acquire's place among the client's waiters for the name; joined before the first waiting attempt. */
        WaitQueues.Waiter waiter;
        /** Whether the name's release subscription was asked for: once, when the lock first proved taken. */
        boolean subscribed;
        boolean acquired;
        /** Set by a cancel of an asynchronous acquire: the next step ends it. */
        volatile boolean cancelled;
        /** What an asynchronous waiter's signal runs; set by its driver before the first step. */
        Runnable onSignal;

        Acquisition(long maxWaitNanos, Thread thread) {
            this(maxWaitNanos, thread, null);
        }

        /** @param holder whom the acquire is made for, or null for the calling thread */
        Acquisition(long maxWaitNanos, Thread thread, HolderIdentity holder) {
            this.maxWaitNanos = maxWaitNanos;
            this.willWait = maxWaitNanos != 0;
            this.thread = thread;
            this.owner = holder == null ? client.newOwner() : client.nextOwner(new Owner("-", holder));
            client.acquiring(owner);
        }

        /** Time left of the wait, without overflow for any bound: Long.MAX_VALUE when unbounded. */
        long remaining(long now) {
            return maxWaitNanos == FOREVER ? Long.MAX_VALUE : maxWaitNanos - (now - start);
        }

        /** Joins the client's waiters for the name: a blocking acquire parks its thread, an asynchronous one not. */
        private void joinQueue() {
            WaitQueues.Waiter newWaiter = thread != null ? new WaitQueues.Waiter() : new WaitQueues.Waiter(onSignal);
            waiter = client.waitQueues.enter(name, newWaiter);
        }

        Step step() throws InterruptedException {
            client.ensureOpen();
            if (cancelled) {
                return Step.finished(Optional.empty());
            }
            // R9.14: a store known to be unreachable fails every acquire at once, a wait under way included (the
            // outage woke it), rather than holding callers for their whole bound.
            failIfOutage(null);
            long now = System.nanoTime();
            if (waiter == null && willWait) {
                // Queue behind the acquires of this client that wait for the name, if any, before any store request:
                // only the first of them makes store attempts. This keeps a hot name's store traffic to one waiter per
                // client, whatever the number of threads; a free name's acquire is active at once.
                joinQueue();
            }
            if (waiter != null && !waiter.isActive()) {
                long left = remaining(now);
                if (left <= 0) {
                    return timedOut(now);
                }
                return Step.untilSignal(left);
            }
            if (retryOnlyWithinTheWait) {
                retryOnlyWithinTheWait = false;
                if (remaining(now) <= 0) {
                    return timedOut(now);
                }
            }
            long sentAt = System.nanoTime();
            long bound = callBound(willWait, remaining(sentAt));
            Optional<Grant> grant = Optional.empty();
            try {
                ownerQueued |= willWait;
                grant = tryOnce(provider, owner, willWait, start, bound);
                lastStoreError = null;
            } catch (LockStoreException e) {
                // tryOnce released the attempt as ambiguous, and a provider may refuse that owner from then on (Redis
                // and PostgreSQL mark it abandoned, so that a late copy of the request cannot take the lock; etcd's key
                // is named after it): the next attempt of this wait is a new owner. Reusing it made RedLock refuse
                // every later attempt of the wait once the clean-up reached a majority.
                client.acquireEnded(owner);
                owner = client.nextOwner(owner);
                ownerQueued = false;
                client.acquiring(owner);
                boolean cutByTheWait = bound < client.commandTimeoutNanos
                        && e.getCause() instanceof java.util.concurrent.TimeoutException;
                // A refused connection, seen by this attempt or by any call of the client before it ended, wins over
                // a time-out and over the retries of R7.7: the store is not there (R9.14).
                failIfOutage(e);
                if (cutByTheWait) {
                    // Cut short by the end of the caller's wait, not failed by the store: the lock was not obtained in
                    // time (a late grant is released). A store error seen before still counts.
                    LOG.debug("the last acquire attempt of lock '{}' was cut short by the end of the wait", name);
                } else {
                    // R7.7: a bounded wait rides out a store that fails for a while (a failover); the time bound is the
                    // contract. tryAcquire() fails fast.
                    // Told to the outage too (a time-out does not reach it otherwise): the other local waiters of the
                    // name, which never ask the store, end with this error at their bound rather than a time-out.
                    client.outage.failed(sentAt, e);
                    if (!willWait || remaining(System.nanoTime()) <= 0) {
                        throw reported(e);
                    }
                    lastStoreError = e;
                    LOG.debug("acquire of lock '{}' failed with a store error; retrying within the wait", name, e);
                    return Step.pause(troublePause());
                }
            }
            now = System.nanoTime();
            if (grant.isPresent()) {
                Optional<Lease> lease = take(provider, grant.get(), owner, sentAt, now, start, thread);
                if (lease == null) {
                    // Lost before the caller got it: a lease to work under it must not be. Within the wait, try again.
                    now = System.nanoTime();
                    if (willWait && remaining(now) > 0) {
                        retryOnlyWithinTheWait = true;
                        return Step.pause(troublePause());
                    }
                    return timedOut(now);
                }
                if (lease.isPresent()) {
                    acquired = true;
                    return Step.finished(lease);
                }
                // Granted, but the answer came too late to trust (a slow store, a paused client). Retrying at once
                // would hammer the store with grants that all come too late: back off, and give up with an error that
                // says why after a few, rather than end in a misleading time-out.
                lateGrants++;
                long roundTrip = now - sentAt;
                LOG.warn("lock '{}' was granted after its validity had passed ({} ms round trip for a {} lease);"
                        + " released it", name, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(roundTrip), ttl);
                if (lateGrants >= MAX_LATE_GRANTS) {
                    LockStoreException tooSlow = new LockStoreException(name, provider.describe() + " granted the"
                            + " lock " + lateGrants + " times only after its " + ttl + " lease had run out on the"
                            + " client (last round trip " + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(
                            roundTrip) + " ms): the lease time is too short for this store; use a longer one", null);
                    client.events().emit(LockEvent.Type.ACQUIRE_FAILED, name, -1, owner.holder(), now - start, tooSlow);
                    throw tooSlow;
                }
                if (willWait) {
                    retryOnlyWithinTheWait = true;
                    return Step.pause(troublePause());
                }
            }
            now = System.nanoTime();
            if (!willWait || remaining(now) <= 0) {
                return timedOut(now);
            }
            if (!subscribed) {
                // The lock proved taken: subscribe to its release, and attempt again at once, which catches a release
                // made before the subscription existed.
                subscribed = true;
                client.waitQueues.subscribe(waiter);
                return Step.pause(0);
            }
            return Step.untilSignal(Math.min(backoff.next(), remaining(now)));
        }

        /** Throws the outage's error if the store is known to be unreachable; {@code seen} is this attempt's. */
        private void failIfOutage(LockStoreException seen) {
            Optional<LockStoreException> outage = client.outage.error(name);
            if (outage.isEmpty()) {
                return;
            }
            LockStoreException error = outage.get();
            if (seen != null && seen.getCause() != error.getCause()) {
                error.addSuppressed(seen);
            }
            throw reported(error);
        }

        /**
         * Reports {@code error} as the outcome of this acquire: one {@code ACQUIRE_FAILED} event per acquire call, not
         * one per store attempt the call made within its wait (a metric of failed acquires counts calls).
         */
        private <E extends LockException> E reported(E error) {
            client.events().emit(LockEvent.Type.ACQUIRE_FAILED, name, -1, owner.holder(), System.nanoTime() - start,
                    error);
            return error;
        }

        private long troublePause() {
            troubleBackoff = troubleBackoff == null ? new Backoff(false, client.maxPollNanos) : troubleBackoff;
            return Math.min(troubleBackoff.next(), Math.max(0, remaining(System.nanoTime())));
        }

        private Step timedOut(long now) {
            failIfOutage(null);
            if (lastStoreError != null) {
                throw reported(lastStoreError);
            }
            Optional<Throwable> failing = willWait ? client.outage.failing() : Optional.empty();
            if (failing.isPresent()) {
                // The wait ran out while the client's store calls were failing (this waiter's own, or those of the
                // name's first waiter for it): the caller must see a store failure, not a busy lock (R7.7).
                LockStoreException error = new LockStoreException(name, provider.describe() + " failed while this"
                        + " wait lasted, and no call has succeeded since (last error: " + failing.get() + ")",
                        failing.get());
                client.events().emit(LockEvent.Type.ACQUIRE_FAILED, name, -1, owner.holder(), now - start, error);
                throw error;
            }
            client.events().emit(LockEvent.Type.ACQUIRE_TIMED_OUT, name, -1, owner.holder(), now - start, null);
            return Step.finished(Optional.empty());
        }

        /** Once, when the acquire ends in any way: leaves the local queue, and the store's queue unless acquired. */
        void end() {
            if (waiter != null) {
                client.waitQueues.leave(name, waiter);
            }
            Owner last = owner;
            try {
                if (ownerQueued) {
                    cancelUnlessAcquired(provider, last, willWait, acquired);
                }
            } finally {
                // Only now: a closing client waits for acquires under way before it closes the provider, and a queue
                // place left by a wait its client's close ended would be handed the lock with nobody to take it.
                client.acquireEnded(last);
            }
        }
    }

    /**
     * Drives an {@link Acquisition} without a waiting thread: each step runs on one of the client's store-call
     * threads, and a pause is a registration that the waiter's signal or the client's timer ends, whichever comes
     * first. Steps never overlap: a signal that comes while a step runs is remembered and looked at when it ends. A
     * cancel of the result ends the wait at the next step (at once, if it is pausing).
     */
    private final class AsyncDriver<T> {
        private final Acquisition acquisition;
        private final CompletableFuture<T> result;
        /** Completes {@link #result} with the outcome; false if the result no longer takes it. */
        private final java.util.function.Predicate<Optional<Lease>> deliver;
        private final Object guard = new Object();
        /** Guarded by {@link #guard}: a step runs or is about to. */
        private boolean running = true;
        /** Guarded by {@link #guard}: a signal (or the cancel) came while a step ran. */
        private boolean woken;
        /** Guarded by {@link #guard}: counts pauses, so that the timer of a pause that already ended does nothing. */
        private long pauseNumber;
        /** Guarded by {@link #guard}: the timer of the current pause. */
        private java.util.concurrent.Future<?> timer;

        AsyncDriver(Acquisition acquisition, CompletableFuture<T> result,
                    java.util.function.Predicate<Optional<Lease>> deliver) {
            this.acquisition = acquisition;
            this.result = result;
            this.deliver = deliver;
        }

        void start() {
            acquisition.onSignal = this::signalled;
            result.whenComplete((ignored, failure) -> {
                if (failure instanceof java.util.concurrent.CancellationException) {
                    acquisition.cancelled = true;
                    signalled();
                }
            });
            submit();
        }

        /** The waiter was signalled, or the wait cancelled: look again now, or after the step that runs. */
        private void signalled() {
            synchronized (guard) {
                if (running) {
                    woken = true;
                    return;
                }
                endPause();
            }
            submit();
        }

        /** The timer of pause {@code number} ran out. */
        private void pauseEnded(long number) {
            synchronized (guard) {
                if (running || number != pauseNumber) {
                    return;
                }
                endPause();
            }
            submit();
        }

        /** Under {@link #guard}: the pause is over and the next step is about to run. */
        private void endPause() {
            running = true;
            pauseNumber++;
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }

        private void submit() {
            try {
                client.storeCalls.executor().execute(this::run);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // The client closed: end here, on the caller's (or timer's) thread.
                run();
            }
        }

        private void run() {
            Step step;
            try {
                step = acquisition.step();
            } catch (InterruptedException e) {
                // Nobody waits on a thread here: a pool thread's stray interrupt; end as a thread's wait would.
                Thread.interrupted();
                finish(Optional.empty(), new LockInterruptedException(name, e));
                return;
            } catch (RuntimeException | Error e) {
                finish(Optional.empty(), e);
                return;
            }
            if (step.done()) {
                finish(step.lease(), null);
                return;
            }
            synchronized (guard) {
                boolean again = acquisition.cancelled || (woken && step.wakeable()) || step.pauseNanos() <= 0;
                woken = false;
                if (!again) {
                    running = false;
                    long number = pauseNumber;
                    timer = client.keeper.runLater(() -> pauseEnded(number), step.pauseNanos());
                    if (timer != null) {
                        return;
                    }
                    running = true; // the client is closing: the next step sees it
                }
            }
            submit();
        }

        private void finish(Optional<Lease> lease, Throwable failure) {
            try {
                acquisition.end();
            } catch (RuntimeException | Error e) {
                if (failure == null && lease.isEmpty()) {
                    failure = e;
                }
            }
            if (failure != null) {
                result.completeExceptionally(failure);
            } else if (!deliver.test(lease)) {
                // Nobody takes this lease any more (cancelled, or completed by the caller): release it.
                lease.ifPresent(Lease::closeAsync);
            }
        }
    }

    /** A wait that ended without the lock leaves no queue place behind (a queueing store's, handed a lock or not). */
    private void cancelUnlessAcquired(LockProvider provider, Owner last, boolean willWait, boolean acquired) {
        if (!willWait || acquired) {
            return;
        }
        // An interrupted waiter must still leave nothing behind: a store call made with the interrupt flag set fails at
        // once in most clients, so clear it for the clean-up and set it again afterwards. The clean-up gets a short
        // grace beyond the caller's bound; after that it goes on in the background.
        // While the store is known to refuse connections the clean-up goes on in the background: waiting for it would
        // only add its failure to the caller's time (DefaultLockClient.cleanUp).
        boolean interrupted = Thread.interrupted();
        try {
            client.cleanUp(name, last, "cancel of the wait", () -> provider.cancel(name, last));
        } catch (RuntimeException e) {
            LOG.warn("could not drop the queue entry of lock '{}' after the wait ended; it is tried again until the"
                    + " store answers, or ends with its TTL", name, e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** How long one store call of this attempt may take: the command time-out, and no longer than the wait. */
    private long callBound(boolean willWait, long remainingNanos) {
        long bound = client.commandTimeoutNanos;
        if (willWait) {
            // At least a little, so that a wait that is about to end still makes its last attempt.
            bound = Math.min(bound, Math.max(MIN_CALL_NANOS, remainingNanos));
        }
        return bound;
    }

    /**
     * Turns a grant into a lease, or releases it: if its validity already passed (empty result), or if anything
     * fails on the way, the store's grant must not stay behind with nobody holding a lease on it. Null if the grant
     * was lost before the caller could get it (the store reported the session's loss while the acquire was in flight):
     * the caller would work under a lease the store may already have let go, beside the next holder.
     */
    private Optional<Lease> take(LockProvider provider, Grant grant, Owner owner, long sentAt, long now, long start,
                                 Thread thread) {
        HeldLock held;
        boolean registered = false;
        try {
            held = new HeldLock(checked(grant, owner), options, DefaultLockClient.saturatedNanos(ttl), sentAt, now,
                    thread);
            if (now - held.deadline < 0) {
                client.registerHeld(held);
                registered = true;
                if (!client.isClosed() && held.state() == HeldLock.State.LOST) {
                    LOG.info("lock '{}' (token {}) was lost as it was granted ({}); not handed out", name,
                            held.grant.fencingToken(), held.lostEvent() == null ? "?" : held.lostEvent().reason());
                    HeldLock.State previous = held.leaseClosed();
                    if (previous != null) {
                        client.lastLeaseClosed(held, previous); // a lost holding's close: released in the background
                    }
                    client.stillAcquiring(owner);
                    return null;
                }
                if (!client.isClosed()) {
                    client.events().emit(LockEvent.Type.ACQUIRED, name, held.grant.fencingToken(),
                            owner.holder(), now - start, null);
                    return Optional.of(new DefaultLease(client, held));
                }
            }
        } catch (RuntimeException | Error e) {
            try {
                client.cleanUp(name, owner, "release after a failed acquire", () -> provider.releaseAmbiguous(name, owner));
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        // The client closed during the acquire, and registerHeld released the lock: hand out no lease on a lock it
        // let go (the caller would work unprotected); say the client is closed, as any call on it then does.
        if (registered) {
            client.ensureOpen();
        }
        client.cleanUp(name, owner, "release of a late grant", () -> provider.release(held.grant));
        return Optional.empty();
    }

    private Optional<Lease> reenter() {
        HeldLock held = client.reentrantHold(name);
        if (held == null) {
            return Optional.empty();
        }
        if (held.tryReenter(Thread.currentThread())) {
            client.events().emit(LockEvent.Type.REENTERED, name, held.grant.fencingToken(),
                    held.grant.owner().holder(), 0, null);
            return Optional.of(new DefaultLease(client, held));
        }
        if (held.state() == HeldLock.State.LOST && held.holdCount() > 0) {
            // The outer lease of this thread is lost and still open: this acquire would have re-entered it, and a
            // fresh lock granted inside it would hide the loss from the code around it. Say what to do instead.
            LeaseLostEvent lost = held.lostEvent();
            throw new LockLostException(lost, "this thread still has an open lease on lock '" + name + "' that was lost ("
                    + lost.reason() + ": " + lost.detail() + "; fencing token " + lost.fencingToken() + "): close the"
                    + " lost lease first, then acquire again");
        }
        return Optional.empty();
    }

    private Optional<Grant> tryOnce(LockProvider provider, Owner owner, boolean willWait, long start, long boundNanos)
            throws InterruptedException {
        try {
            // What an attempt does after the caller stopped waiting for it is cleaned up when it ends (see below).
            return client.storeCalls.call(name, "acquire", () -> provider.tryAcquire(new AcquireRequest(name, owner,
                    ttl, willWait)), boundNanos, late -> afterLateAttempt(provider, owner, willWait, late),
                    failure -> afterLateFailure(provider, owner));
        } catch (InterruptedException e) {
            // The request may have reached the store: clean up as after a failure, without the interrupt flag.
            try {
                client.cleanUp(name, owner, "release after an interrupted acquire",
                        () -> provider.releaseAmbiguous(name, owner));
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            LockInterruptedException stopped = new LockInterruptedException(name, e);
            for (Throwable storeFailure : e.getSuppressed()) {
                stopped.addSuppressed(storeFailure);
            }
            Thread.currentThread().interrupt();
            client.events().emit(LockEvent.Type.ACQUIRE_FAILED, name, -1, owner.holder(), System.nanoTime() - start,
                    stopped);
            throw stopped;
        } catch (RuntimeException e) {
            // A store call cut short by an interrupt is an interrupted wait, not a store failure. Clear the flag
            // while cleaning up, or the clean-up's own store call would be cut short too.
            boolean interrupted = Thread.interrupted() || causedByInterrupt(e);
            LockException failure = e instanceof LockException le ? le
                    : new LockStoreException(name, provider.describe() + " failed to acquire", e);
            // The request may have reached the store: make sure no lock stays behind that nobody thinks it holds.
            // Waited for a short grace only: a dead store must not stretch the caller's bound; not at all when the
            // store is known to refuse connections (it goes on in the background).
            try {
                client.cleanUp(name, owner, "release after a failed acquire", () -> provider.releaseAmbiguous(name, owner));
            } catch (RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
                LockInterruptedException stopped = new LockInterruptedException(name,
                        new InterruptedException("interrupted during a store call"));
                stopped.addSuppressed(failure);
                failure = stopped;
            }
            if (!(failure instanceof LockStoreException)) {
                // Ends the acquire (an interrupt, a refusal): reported here. A store error may be retried within the
                // wait; the acquire reports it once if it ends with it (Acquisition.reported).
                client.events().emit(LockEvent.Type.ACQUIRE_FAILED, name, -1, owner.holder(),
                        System.nanoTime() - start, failure);
            }
            throw failure;
        }
    }

    /**
     * An attempt the caller stopped waiting for (its wait ended, it was interrupted) went on at the store and ended
     * after the client had cleaned up for its owner (releaseAmbiguous, cancel): what it left must not stay, or a late
     * queue entry would sit ahead of every later waiter, a holder nobody releases, for the whole session (etcd: while
     * the shared lease is kept alive). Done here, once for every store, when the attempt's outcome is known, so that
     * no provider has to remember cancelled owners: a grant is released; a queue place kept by a waiting attempt is
     * cancelled. The owner is never used again (the wait went on with a new owner, or ended), so this touches nothing
     * of a later attempt.
     */
    private void afterLateAttempt(LockProvider provider, Owner owner, boolean willWait, Optional<Grant> late) {
        if (late.isPresent()) {
            provider.release(late.get());
        } else if (willWait) {
            provider.cancel(name, owner);
        }
    }

    /** As {@link #afterLateAttempt}, for an attempt that failed late: it may still have left an entry behind. */
    private void afterLateFailure(LockProvider provider, Owner owner) {
        provider.releaseAmbiguous(name, owner);
    }

    private static boolean causedByInterrupt(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            // SocketTimeoutException is an InterruptedIOException too, but it is a store time-out (an acquire whose
            // answer was lost), not an interrupt: taking it for one would set the caller's interrupt flag.
            if (cause instanceof InterruptedException || cause instanceof java.nio.channels.ClosedByInterruptException
                    || (cause instanceof java.io.InterruptedIOException
                            && !(cause instanceof java.net.SocketTimeoutException))) {
                return true;
            }
        }
        return false;
    }

    private Grant checked(Grant grant, Owner owner) {
        if (!grant.name().equals(name) || !grant.owner().id().equals(owner.id())) {
            throw new IllegalStateException(client.provider().describe() + " granted " + grant.name() + " to "
                    + grant.owner().id() + " when asked for " + name + " by " + owner.id());
        }
        return grant;
    }

    @Override
    public boolean isHeldByCurrentThread() {
        HeldLock held = client.reentrantHold(name);
        return held != null && held.isHeld(System.nanoTime());
    }

    @Override
    public Optional<LockInfo> inspect() {
        client.ensureOpen();
        return client.inspectWithin(name);
    }

    @Override
    public Lock asJavaLock() {
        return new JavaLockAdapter(this);
    }

    @Override
    public String toString() {
        return "DistributedLock[" + name + " on " + client.describe() + "]";
    }
}
