package io.locksmith.tck;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * N clients x M threads contend for one lock name (the mutex, or an exclusive use of a primitive: {@link #shape(LockShape)}).
 * Each operation: acquire with a bounded wait, enter a
 * {@link FencedRegister} with the lease's token, write, run the {@link CriticalSection} hook (a pause, a
 * fault), write again, leave, release. The run stops after a number of operations or a duration, whichever
 * comes first, and returns a {@link WorkloadReport}.
 * <pre>{@code
 * WorkloadReport report = ContentionWorkload.on(List.of(a, b, c), "stock:42")
 *         .threadsPerClient(3).operations(60).run();
 * assertTrue(report.isSafe(), report::toString);
 * }</pre>
 *
 * <p>The caller owns the clients (opens and closes them). The second write of each operation, made after
 * the hook, is the one a paused holder makes after its lease ran out: a fencing store makes the register
 * reject it. Not thread-safe; {@link #run()} may be called more than once.
 */
public final class ContentionWorkload {

    /** What a holder does inside its critical section, between its two writes. */
    @FunctionalInterface
    public interface CriticalSection {
        /**
         * @param lease       the holder's lease
         * @param clientIndex which client (0-based) holds it
         * @param operation   the sequence number of this operation in the run
         * @throws InterruptedException to stop the worker (counted as an error, not a hang)
         */
        void inside(Lease lease, int clientIndex, long operation) throws InterruptedException;
    }

    private final List<LockClient> clients;
    private final String lockName;
    private int threadsPerClient = 1;
    private int operations = 100;
    private boolean countingOnlyCompleted;
    private AtomicInteger sharedBudget;
    private Duration maxDuration = Duration.ofSeconds(30);
    private Duration acquireWait = Duration.ofSeconds(10);
    private LockOptions lockOptions;
    private LockShape shape = LockShape.MUTEX;
    private double readShare;
    private Duration holdFor = Duration.ZERO;
    private CriticalSection criticalSection = (lease, client, operation) -> { };
    private FencedRegister register;

    private ContentionWorkload(List<LockClient> clients, String lockName) {
        this.clients = List.copyOf(clients);
        this.lockName = Objects.requireNonNull(lockName, "lockName cannot be null");
        if (this.clients.isEmpty()) {
            throw new IllegalArgumentException("a workload needs at least one client");
        }
    }

    /**
     * A workload on {@code lockName} through {@code clients}.
     *
     * @throws NullPointerException     if an argument or a client is null
     * @throws IllegalArgumentException if {@code clients} is empty
     */
    public static ContentionWorkload on(List<LockClient> clients, String lockName) {
        return new ContentionWorkload(clients, lockName);
    }

    /** Threads per client; default 1. */
    public ContentionWorkload threadsPerClient(int threads) {
        this.threadsPerClient = requirePositive(threads, "threadsPerClient");
        return this;
    }

    /** Operations to run in total; default 100. */
    public ContentionWorkload operations(int operations) {
        this.operations = requirePositive(operations, "operations");
        return this;
    }

    /**
     * Draws the operations from {@code budget}, shared with workloads on other locks running at the same time, instead
     * of {@link #operations(int)}: together they stop once the budget is spent, however it falls between them (a lock
     * that is slow or blocked for a while does not hold the others up). With {@link #countingOnlyCompleted()} a
     * failed attempt gives its operation back to the budget.
     */
    public ContentionWorkload operationsFrom(AtomicInteger budget) {
        this.sharedBudget = Objects.requireNonNull(budget, "budget cannot be null");
        return this;
    }

    /**
     * Counts only completed operations towards {@link #operations(int)}: an attempt that timed out or met a
     * store error is made again (a long run under faults then still completes its operations; its duration
     * stays bounded by {@link #maxDuration(Duration)}). Default: every attempt counts.
     */
    public ContentionWorkload countingOnlyCompleted() {
        this.countingOnlyCompleted = true;
        return this;
    }

    /** After this long no new operation starts; default 30 s. */
    public ContentionWorkload maxDuration(Duration duration) {
        this.maxDuration = requirePositive(duration, "maxDuration");
        return this;
    }

    /** The bounded wait of each acquire; default 10 s. */
    public ContentionWorkload acquireWait(Duration wait) {
        this.acquireWait = requirePositive(wait, "acquireWait");
        return this;
    }

    /** The options of the lock; default the clients' defaults. */
    public ContentionWorkload lockOptions(LockOptions options) {
        this.lockOptions = Objects.requireNonNull(options, "options cannot be null");
        return this;
    }

    /**
     * Takes each holding through this shape of primitive on the lock name instead of the mutex; default
     * {@link LockShape#MUTEX}. A shape other than the mutex is built with {@link #lockOptions(LockOptions)}, or with
     * {@link LockOptions#defaults()} if none were given (a read-write lock with a reader limit cannot be had with the
     * client's defaults).
     */
    public ContentionWorkload shape(LockShape shape) {
        this.shape = Objects.requireNonNull(shape, "shape cannot be null");
        return this;
    }

    /**
     * Makes this share of the operations readers of the read-write lock whose write lock the {@link LockShape#WRITE_LOCK}
     * shape takes (the rest stay writers): a reader takes its read lock, enters the register as a shared holding
     * ({@link FencedRegister#enterShared}) and reads through the fence where a writer writes. Readers may be inside
     * together; a writer beside anyone is an overlap. Default 0 (every operation a writer).
     *
     * @throws IllegalArgumentException if {@code share} is not between 0 and 1
     */
    public ContentionWorkload readers(double share) {
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException("the readers' share must be between 0 and 1, was " + share);
        }
        this.readShare = share;
        return this;
    }

    /** How long each holder stays inside before its second write (a busy critical section); default 0. */
    public ContentionWorkload holdFor(Duration duration) {
        Objects.requireNonNull(duration, "duration cannot be null");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("holdFor must not be negative, was " + duration);
        }
        this.holdFor = duration;
        return this;
    }

    /** A hook run inside the critical section between the two writes: a pause, a fault injection. */
    public ContentionWorkload inside(CriticalSection hook) {
        this.criticalSection = Objects.requireNonNull(hook, "hook cannot be null");
        return this;
    }

    /** Writes through this register instead of a fresh one (to inspect it afterwards). */
    public ContentionWorkload register(FencedRegister register) {
        this.register = Objects.requireNonNull(register, "register cannot be null");
        return this;
    }

    /**
     * Runs the workload and waits for it: at most {@code maxDuration + acquireWait} and a little more, after
     * which remaining workers are interrupted and counted as stuck.
     */
    public WorkloadReport run() {
        if (readShare > 0 && shape != LockShape.WRITE_LOCK) {
            throw new IllegalStateException("readers need the write-lock shape (their read lock is that read-write"
                    + " lock's), the shape is " + shape.argument());
        }
        FencedRegister fence = register != null ? register : new FencedRegister();
        Run run = new Run(fence);
        long start = System.nanoTime();
        run.deadline = start + maxDuration.toNanos();
        List<Thread> workers = new ArrayList<>();
        for (int c = 0; c < clients.size(); c++) {
            for (int t = 0; t < threadsPerClient; t++) {
                int clientIndex = c;
                Thread worker = new Thread(() -> run.work(clientIndex), "workload-" + lockName + "-c" + c + "-t" + t);
                worker.setDaemon(true);
                workers.add(worker);
            }
        }
        workers.forEach(Thread::start);
        long joinBy = run.deadline + acquireWait.toNanos() + TimeUnit.SECONDS.toNanos(5);
        int stuck = 0;
        for (Thread worker : workers) {
            if (!join(worker, joinBy - System.nanoTime())) {
                worker.interrupt();
                join(worker, TimeUnit.SECONDS.toNanos(1));
                stuck++;
            }
        }
        return new WorkloadReport(lockName, clients.size(), threadsPerClient, run.completed.get(), run.timeouts.get(),
                run.errors.get(), fence.overlaps(), fence.staleWritesAccepted(), fence.staleWritesRejected(),
                fence.tokenMonotonicityViolations(), run.lostInside.get(), stuck,
                Duration.ofNanos(System.nanoTime() - start), run.firstError.get());
    }

    private static boolean join(Thread thread, long nanos) {
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    /** The shared state of one run. */
    private final class Run {
        final FencedRegister fence;
        final AtomicInteger remaining = sharedBudget != null ? sharedBudget : new AtomicInteger(operations);
        final AtomicLong sequence = new AtomicLong();
        final AtomicLong completed = new AtomicLong();
        final AtomicLong timeouts = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong lostInside = new AtomicLong();
        final AtomicReference<Throwable> firstError = new AtomicReference<>();
        volatile long deadline;

        Run(FencedRegister fence) {
            this.fence = fence;
        }

        void work(int clientIndex) {
            LockClient client = clients.get(clientIndex);
            // Never below zero: each thread that finds the budget spent would otherwise take one more, and the operation
            // a failed attempt gives back (countAgain) would be swallowed: the run ended short of its operations.
            while (remaining.getAndUpdate(left -> left > 0 ? left - 1 : left) > 0 && System.nanoTime() - deadline < 0
                    && !Thread.currentThread().isInterrupted()) {
                long operation = sequence.incrementAndGet();
                try {
                    if (operate(client, clientIndex, operation)) {
                        completed.incrementAndGet();
                    } else {
                        timeouts.incrementAndGet();
                        countAgain();
                    }
                } catch (InterruptedException | LockInterruptedException e) {
                    fail(e);
                    return;
                } catch (RuntimeException | AssertionError e) {
                    fail(e);
                    countAgain();
                }
            }
        }

        /** A failed attempt does not count towards the operations when only completed ones do. */
        private void countAgain() {
            if (countingOnlyCompleted) {
                remaining.incrementAndGet();
            }
        }

        private boolean operate(LockClient client, int clientIndex, long operation) throws InterruptedException {
            boolean reading = readShare > 0 && java.util.concurrent.ThreadLocalRandom.current().nextDouble() < readShare;
            Optional<Lease> acquired = (reading ? readLock(client) : lock(client)).tryAcquire(acquireWait);
            if (acquired.isEmpty()) {
                return false;
            }
            // Whether the lease was still held as it entered: an overlap with one that was not is a lost lease's.
            String holderId = client.clientId() + "#" + operation + (acquired.get().isHeld() ? "" : "(lost at entry)");
            try (Lease lease = acquired.get();
                 FencedRegister.Hold hold = reading ? fence.enterShared(lease.fencingToken(), holderId)
                         : fence.enter(lease.fencingToken(), holderId)) {
                touch(hold, reading, operation);
                if (!holdFor.isZero()) {
                    LockSupport.parkNanos(holdFor.toNanos());
                }
                criticalSection.inside(lease, clientIndex, operation);
                touch(hold, reading, operation);
                if (!lease.isHeld()) {
                    lostInside.incrementAndGet();
                }
            }
            return true;
        }

        /** A reader reads through the fence, a writer writes. */
        private void touch(FencedRegister.Hold hold, boolean reading, long operation) {
            if (reading) {
                hold.read();
            } else {
                hold.write(operation);
            }
        }

        private DistributedLock readLock(LockClient client) {
            return client.readWriteLock(lockName, lockOptions == null ? LockOptions.defaults() : lockOptions,
                    LockShape.WRITE_LOCK_MAX_READERS).readLock();
        }

        private DistributedLock lock(LockClient client) {
            if (lockOptions == null && shape == LockShape.MUTEX) {
                return client.lock(lockName);
            }
            return shape.lock(client, lockName, lockOptions == null ? LockOptions.defaults() : lockOptions);
        }

        private void fail(Throwable e) {
            errors.incrementAndGet();
            firstError.compareAndSet(null, e);
        }
    }

    private static int requirePositive(int value, String what) {
        if (value <= 0) {
            throw new IllegalArgumentException(what + " must be positive, was " + value);
        }
        return value;
    }

    private static Duration requirePositive(Duration value, String what) {
        Objects.requireNonNull(value, what + " cannot be null");
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(what + " must be positive, was " + value);
        }
        return value;
    }
}
