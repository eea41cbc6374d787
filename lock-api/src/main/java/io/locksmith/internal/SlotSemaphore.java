package io.locksmith.internal;

import io.locksmith.DistributedLock;
import io.locksmith.DistributedSemaphore;
import io.locksmith.HolderIdentity;
import io.locksmith.Lease;
import io.locksmith.LockInfo;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.LockTimeoutException;
import io.locksmith.LossAction;
import io.locksmith.PermitLease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A semaphore of N permits made of the store's own locks: one lock per permit ({@code NAME#permit:I}) and a gate
 * ({@code NAME#permit/gate}) that acquirers pass one at a time. Every guarantee comes from the locks: at most N
 * permits are held because each permit is a lock; a crashed holder's permits return at their TTL; renewal, loss,
 * identity and waiting are the shared client's. What this class adds is the all-or-nothing collection of several
 * permits without deadlock: only the gate's holder takes permits and waits for them, so no two acquirers each
 * hold part of what the other needs, and acquirers are served in the gate's order.
 *
 * <p>The read-write lock is this semaphore under another namespace ({@code NAME#rw}): a reader takes one permit, a
 * writer all of them.
 */
final class SlotSemaphore implements DistributedSemaphore {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger("io.locksmith");

    /** What a name may leave for the suffix of its permit locks ({@code #permit:255}, {@code #permit/gate}). */
    static final int MAX_NAME_LENGTH = LockNames.MAX_LENGTH - 16;
    private static final long FOREVER = Long.MAX_VALUE;

    private final DefaultLockClient client;
    private final String name;
    private final String kind;
    private final int permits;
    private final LockOptions options;
    private final DefaultDistributedLock gate;
    private final DefaultDistributedLock[] slots;

    /**
     * @param kind      what it is called in messages ("semaphore", "read-write lock")
     * @param namespace the suffix of its store locks' names ({@code #permit}, {@code #rw})
     */
    SlotSemaphore(DefaultLockClient client, String name, int permits, LockOptions options, String kind,
                  String namespace) {
        this.client = client;
        this.name = validName(name, kind);
        this.kind = kind;
        Objects.requireNonNull(options, "options cannot be null");
        if (permits < 1 || permits > MAX_PERMITS) {
            throw new IllegalArgumentException(kind + " '" + name + "' must have between 1 and " + MAX_PERMITS
                    + " permits, was " + permits);
        }
        this.permits = permits;
        this.options = options;
        // Permit leases are never re-entered, and interrupting a holder is done here, for the thread that acquired
        // (a permit lock's own acquiring thread is one of the client's).
        LockOptions slotOptions = options.toBuilder().reentrant(false).onLoss(LossAction.NOTIFY).build();
        // The gate is held while its holder collects permits, as long as the caller's wait: renewed without bound
        // (a crashed collector's gate runs out at its lease time).
        LockOptions gateOptions = LockOptions.builder().leaseTime(options.leaseTime()).renewing().unboundedHold()
                .reentrant(false).build();
        this.gate = (DefaultDistributedLock) client.lock(this.name + namespace + "/gate", gateOptions);
        this.slots = new DefaultDistributedLock[permits];
        for (int i = 0; i < permits; i++) {
            slots[i] = (DefaultDistributedLock) client.lock(this.name + namespace + ":" + i, slotOptions);
        }
    }

    static String validName(String name, String kind) {
        LockNames.validate(name);
        if (name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(kind + " name is " + name.length() + " characters long; at most "
                    + MAX_NAME_LENGTH + " are allowed (its store locks add a suffix): '" + name.substring(0, 40)
                    + "...'");
        }
        return name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public LockOptions options() {
        return options;
    }

    @Override
    public PermitLease acquire(int count, Duration maxWait) {
        return tryAcquire(count, maxWait).orElseThrow(() -> new LockTimeoutException(name, maxWait));
    }

    @Override
    public Optional<PermitLease> tryAcquire(int count, Duration maxWait) {
        return Optional.ofNullable(awaitHolding(start(count, maxWait, Thread.currentThread(), false), name));
    }

    @Override
    public CompletableFuture<PermitLease> acquireAsync(int count, Duration maxWait) {
        return adapt(start(count, maxWait, null, false), lease -> lease, () -> {
            throw new LockTimeoutException(name, maxWait);
        });
    }

    /**
     * A future of what {@code holding} gives: {@code onLease} of the lease, or {@code onTimeout} (which may throw) if
     * it gave none; its failure as is. Cancelling the returned future cancels the holding, and a lease that comes
     * after the returned future was completed otherwise (cancelled) is released.
     */
    static <T> CompletableFuture<T> adapt(CompletableFuture<SlotLease> holding, Function<SlotLease, T> onLease,
                                          Supplier<T> onTimeout) {
        CompletableFuture<T> result = new CompletableFuture<>();
        holding.whenComplete((lease, failure) -> {
            if (failure != null) {
                result.completeExceptionally(unwrap(failure));
            } else if (lease == null) {
                try {
                    result.complete(onTimeout.get());
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            } else if (!result.complete(onLease.apply(lease))) {
                lease.closeAsync();
            }
        });
        result.whenComplete((lease, failure) -> {
            if (failure instanceof CancellationException) {
                holding.cancel(false);
            }
        });
        return result;
    }

    /**
     * Starts an acquire of {@code count} permits; the future gives null on time-out.
     *
     * @param caller    the thread of a blocking acquire (interrupted on loss if the options say so), or null
     * @param exclusive whether the lease is a read-write lock's write lease
     */
    CompletableFuture<SlotLease> start(int count, Duration maxWait, Thread caller, boolean exclusive) {
        if (count < 1 || count > permits) {
            throw new IllegalArgumentException("cannot take " + count + " permits of " + kind + " '" + name
                    + "', which has " + permits);
        }
        Objects.requireNonNull(maxWait, "maxWait cannot be null");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, was " + maxWait + " [" + kind + " '"
                    + name + "']");
        }
        client.ensureOpen();
        long waitNanos = DefaultLockClient.saturatedNanos(maxWait);
        long now = System.nanoTime();
        long deadline = now + waitNanos;
        if (waitNanos == Long.MAX_VALUE || deadline - now < 0) {
            deadline = FOREVER;
        }
        Attempt attempt = new Attempt(count, deadline, caller, exclusive);
        attempt.begin(waitNanos == 0);
        return attempt.result;
    }

    /**
     * Waits for a holding the blocking way: the result, or null on time-out; an interrupt cancels the attempt.
     */
    static SlotLease awaitHolding(CompletableFuture<SlotLease> holding, String name) {
        try {
            // Every step of an attempt is bounded (each store lock's acquire by the attempt's deadline), so it ends.
            return holding.get();
        } catch (InterruptedException e) {
            holding.cancel(false);
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(name, e);
        } catch (ExecutionException e) {
            throw rethrown(e.getCause());
        }
    }

    static RuntimeException rethrown(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new LockStoreException("unexpected failure", cause);
    }

    @Override
    public boolean release(String permitId) {
        Objects.requireNonNull(permitId, "permitId cannot be null");
        SlotLease lease = SlotLease.live(permitId);
        if (lease == null || lease.client() != client || !lease.semaphoreName().equals(name) || !lease.isHeld()) {
            return false;
        }
        return lease.closeHeld();
    }

    @Override
    public List<LockInfo> holders(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout cannot be null");
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        long deadline = System.nanoTime() + DefaultLockClient.saturatedNanos(timeout);
        List<LockInfo> held = new ArrayList<>();
        for (DistributedLock slot : slots) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new LockStoreException(name, "the " + kind + "'s permits could not all be read within "
                        + timeout, null);
            }
            client.inspect(slot.name(), Duration.ofNanos(left)).ifPresent(held::add);
        }
        return held;
    }

    @Override
    public DistributedLock asLock(int count) {
        return new SlotLockView(this, count, false, count + " permit(s) of " + kind + " '" + name + "'");
    }

    DefaultLockClient client() {
        return client;
    }

    String kind() {
        return kind;
    }

    /**
     * One acquire: the gate, then the permits, first one try each (as many at once as are still needed, from a random
     * start, so collectors do not all probe the same permit first), then a wait on every permit not yet taken, each
     * on the store's release notifications; the first ones granted are kept, the rest cancelled or released.
     *
     * <p>Its monitor guards its own fields only: nothing outside (a store lock's acquire, cancel or release, whose
     * completions call back into this attempt from the client's threads) is called while it is held.
     */
    private final class Attempt {
        final int needed;
        final long deadline;
        final Thread caller;
        final boolean exclusive;
        /** The caller's identity, taken on its thread: every store lock of the holding shows it. */
        final HolderIdentity holder = client.newOwner().holder();
        final CompletableFuture<SlotLease> result = new CompletableFuture<>();
        /** Every store wait started; cancelled when the attempt ends (a wait started after that cancels itself). */
        private final List<CompletableFuture<?>> pending = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final List<Integer> order = new ArrayList<>();
        // Guarded by this.
        private final List<Lease> taken = new ArrayList<>();
        private int probed;
        private int waitsLeft;
        private Lease gateLease;
        private long gateToken;
        private volatile boolean finished;

        Attempt(int needed, long deadline, Thread caller, boolean exclusive) {
            this.needed = needed;
            this.exclusive = exclusive;
            this.deadline = deadline;
            this.caller = caller;
            for (int i = 0; i < permits; i++) {
                order.add(i);
            }
            Collections.rotate(order, ThreadLocalRandom.current().nextInt(permits));
        }

        void begin(boolean once) {
            result.whenComplete((lease, failure) -> {
                if (failure instanceof CancellationException) {
                    finish(null, null);
                }
            });
            CompletableFuture<Optional<Lease>> gateWait = gate.tryAcquireAsync(once ? Duration.ZERO : remaining(), holder);
            track(gateWait);
            gateWait.whenComplete((lease, failure) -> guarded(() -> {
                if (failure != null) {
                    finish(null, failure);
                } else if (lease.isEmpty()) {
                    finish(null, null);
                } else if (!gateTaken(lease.get())) {
                    lease.get().closeAsync();
                } else {
                    probe();
                }
            }));
        }

        private Duration remaining() {
            if (deadline == FOREVER) {
                return Duration.ofNanos(Long.MAX_VALUE);
            }
            return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        }

        private synchronized boolean gateTaken(Lease lease) {
            if (finished) {
                return false;
            }
            gateLease = lease;
            gateToken = lease.fencingToken();
            return true;
        }

        /** Registers a store wait; one started after the attempt ended is cancelled at once. */
        private void track(CompletableFuture<?> future) {
            pending.add(future);
            if (finished) {
                future.cancel(false);
            }
        }

        /** One try at each of the next permits, as many at once as are still needed. */
        private void probe() {
            List<Integer> next = new ArrayList<>();
            synchronized (this) {
                if (finished) {
                    return;
                }
                int missing = needed - taken.size();
                while (next.size() < missing && probed < permits) {
                    next.add(order.get(probed++));
                }
            }
            if (next.isEmpty()) {
                waitForPermits();
                return;
            }
            List<CompletableFuture<Optional<Lease>>> batch = new ArrayList<>();
            for (int index : next) {
                CompletableFuture<Optional<Lease>> attempt = slots[index].tryAcquireAsync(Duration.ZERO, holder);
                track(attempt);
                batch.add(attempt);
            }
            CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new)).whenComplete((ignored, failure) -> guarded(() -> {
                Throwable firstFailure = null;
                for (CompletableFuture<Optional<Lease>> attempt : batch) {
                    if (attempt.isCompletedExceptionally()) {
                        firstFailure = firstFailure == null ? causeOf(attempt) : firstFailure;
                    } else {
                        attempt.join().ifPresent(this::granted);
                    }
                }
                if (firstFailure != null) {
                    finish(null, firstFailure);
                } else if (!isDone()) {
                    probe();
                }
            }));
        }

        /** Every permit not taken yet, waited for at once; the first ones granted are kept. */
        private void waitForPermits() {
            List<Integer> wanted = new ArrayList<>();
            synchronized (this) {
                if (finished) {
                    return;
                }
                for (int i = 0; i < permits; i++) {
                    String slotName = slots[i].name();
                    if (taken.stream().noneMatch(lease -> lease.lockName().equals(slotName))) {
                        wanted.add(i);
                    }
                }
                waitsLeft = wanted.size();
            }
            Duration left = remaining();
            if (left.isZero() || wanted.isEmpty()) {
                finish(null, null);
                return;
            }
            for (int index : wanted) {
                CompletableFuture<Optional<Lease>> wait = slots[index].tryAcquireAsync(left, holder);
                track(wait);
                wait.whenComplete((lease, failure) -> guarded(() -> {
                    if (failure != null && !(failure instanceof CancellationException)) {
                        finish(null, failure);
                        return;
                    }
                    if (lease != null && lease.isPresent()) {
                        granted(lease.get());
                    }
                    // Granted or not, this wait is over: the last one to end without completing the attempt ends it
                    // (a time-out). Found by R12.4 on PostgreSQL: a granted wait that did not count left the attempt
                    // waiting for ever once the other wait timed out.
                    waitEnded();
                }));
            }
        }

        /**
         * Runs a step from a store call's completion; a step that throws (the client closed under it) ends the attempt
         * with that failure, where the completion would otherwise swallow it and leave the caller waiting.
         */
        private void guarded(Runnable step) {
            try {
                step.run();
            } catch (RuntimeException | Error e) {
                finish(null, e);
            }
        }

        private void waitEnded() {
            boolean last;
            synchronized (this) {
                last = --waitsLeft == 0;
            }
            if (last) {
                finish(null, null);
            }
        }

        private void granted(Lease lease) {
            List<Lease> complete = null;
            boolean kept;
            synchronized (this) {
                kept = !finished && taken.size() < needed;
                if (kept) {
                    taken.add(lease);
                    if (taken.size() == needed) {
                        complete = List.copyOf(taken);
                    }
                }
            }
            if (!kept) {
                lease.closeAsync();
            } else if (complete != null) {
                finish(complete, null);
            }
        }

        @Override
        public synchronized String toString() {
            return "acquire of " + needed + " permit(s) of " + kind + " '" + name + "': gate " + (gateLease == null
                    ? "not taken" : "taken") + ", " + taken.size() + " taken, " + probed + " probed, " + waitsLeft
                    + " waits left, finished " + finished + ", " + pending.stream().filter(f -> !f.isDone()).count()
                    + " store calls under way";
        }

        private synchronized boolean isDone() {
            return finished || taken.size() >= needed;
        }

        /**
         * Ends the attempt once: with the permits, or with nothing (a time-out when {@code failure} is null). Whatever
         * is not kept is released, every wait still running is cancelled, and the gate is passed on.
         */
        private void finish(List<Lease> collected, Throwable failure) {
            List<Lease> toRelease;
            Lease gateToRelease;
            long token;
            synchronized (this) {
                if (finished) {
                    return;
                }
                finished = true;
                gateToRelease = gateLease;
                token = gateToken;
            }
            // The lease's token is the gate's: it is the newest only while the gate is still held (no other acquirer
            // can have passed the gate before this client is told its gate lease is lost, R3.3). An attempt whose gate
            // or a permit was lost while it collected (its session ended, it was cut off) gives everything back and
            // queues again. Found by the safety run of the write-lock shape on ZooKeeper: such an attempt completed
            // later with its old gate token, below the tokens of holders that had come and gone meanwhile.
            boolean requeue = collected != null && (gateToRelease == null || !gateToRelease.isHeld()
                    || !collected.stream().allMatch(Lease::isHeld));
            List<Lease> kept = requeue ? null : collected;
            synchronized (this) {
                toRelease = kept == null ? List.copyOf(taken) : List.of();
            }
            if (requeue) {
                LOG.debug("an acquire of {} '{}' lost its gate or a permit (gate token {}) while it collected permits;"
                        + " it queues again", kind, name, token);
            }
            // Each clean-up on its own: one that throws must neither skip the others nor leave the caller waiting.
            for (CompletableFuture<?> future : pending) {
                quietly(() -> future.cancel(false)); // a lease granted at the moment of the cancel: released by the lock
            }
            List<CompletableFuture<Void>> releases = new ArrayList<>();
            for (Lease lease : toRelease) {
                releases.add(releasedQuietly(lease));
            }
            if (gateToRelease != null) {
                releases.add(releasedQuietly(gateToRelease));
            }
            // The result waits for the gate and the unkept permits to be given back (each release is bounded by the
            // client's call limit): a caller's next tryAcquire(n, 0) must not be refused by its own last attempt's
            // gate. Found by R11.5 under the latency mutant: the kit's newcomer saw its own gate as a waiter's.
            CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).whenComplete((ignored, releaseFailure) -> {
                if (requeue) {
                    requeue();
                } else if (kept != null) {
                    grant(kept, token);
                } else if (failure != null) {
                    result.completeExceptionally(unwrap(failure));
                } else {
                    result.complete(null);
                }
            });
        }

        /**
         * Hands the caller a lease of {@code kept} if every permit is still held now. Giving the gate back took a
         * store call (up to the call's bound when the store is slow to answer), and a permit lost meanwhile would
         * reach the caller as a lease already lost whose other permits go back at once: the next acquirer could hold
         * them all while the caller, just granted, is inside. Found by a safety run through a semaphore on a
         * ZooKeeper ensemble (one overlap, fenced). Such an acquire gives everything back and queues again.
         */
        private void grant(List<Lease> kept, long token) {
            // Bound to the caller only once known held: a permit lost at construction must not interrupt it.
            SlotLease lease = new SlotLease(SlotSemaphore.this, kept, token, null, exclusive);
            if (!lease.isHeld()) {
                LOG.debug("an acquire of {} '{}' lost a permit while it gave its gate back (gate token {}); it queues"
                        + " again", kind, name, token);
                releasedQuietly(lease).whenComplete((ignored, failure) -> requeue());
                return;
            }
            lease.bindTo(caller);
            if (!result.complete(lease)) {
                lease.closeAsync();
            }
        }

        /**
         * Starts this acquire again with the same deadline (one try if it has passed) and gives the caller what that
         * attempt gives; cancelling the caller's future cancels it.
         */
        private void requeue() {
            if (result.isDone()) {
                return; // cancelled meanwhile
            }
            Attempt again = new Attempt(needed, deadline, caller, exclusive);
            result.whenComplete((lease, failure) -> {
                if (failure instanceof CancellationException) {
                    again.result.cancel(false);
                }
            });
            again.result.whenComplete((lease, failure) -> {
                if (failure != null) {
                    result.completeExceptionally(unwrap(failure));
                } else if (!result.complete(lease) && lease != null) {
                    lease.closeAsync();
                }
            });
            try {
                again.begin(deadline != FOREVER && deadline - System.nanoTime() <= 0);
            } catch (RuntimeException e) {
                result.completeExceptionally(e); // the client closed meanwhile
            }
        }

        /** A release whose failure is logged, never thrown: the future completes normally either way. */
        private CompletableFuture<Void> releasedQuietly(Lease lease) {
            try {
                return lease.closeAsync().handle((ignored, failure) -> {
                    if (failure != null) {
                        LOG.warn("a clean-up of an acquire of {} '{}' failed", kind, name, failure);
                    }
                    return null;
                });
            } catch (RuntimeException e) {
                LOG.warn("a clean-up of an acquire of {} '{}' failed", kind, name, e);
                return CompletableFuture.completedFuture(null);
            }
        }
    }

    private void quietly(Runnable cleanup) {
        try {
            cleanup.run();
        } catch (RuntimeException e) {
            LOG.warn("a clean-up of an acquire of {} '{}' failed", kind, name, e);
        }
    }

    private static Throwable causeOf(CompletableFuture<?> future) {
        try {
            future.join();
            return null;
        } catch (CompletionException | CancellationException e) {
            return unwrap(e);
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
