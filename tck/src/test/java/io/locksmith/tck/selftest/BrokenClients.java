package io.locksmith.tck.selftest;

import io.locksmith.Capability;
import io.locksmith.DistributedLock;
import io.locksmith.LeaderElection;
import io.locksmith.DistributedSemaphore;
import io.locksmith.DistributedReadWriteLock;
import io.locksmith.HolderIdentity;
import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockOptions;
import io.locksmith.LockTimeoutException;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

/**
 * Broken variants of the shared client, for the rules that test the client rather than the store (R4.4-R4.6, R7.11,
 * R10): decorators of the public interfaces over a real client, each with one bug of the kind lock clients ship
 * (re-entry keyed by thread, an asynchronous call that is the blocking one on a pool, a polling wait, a unit
 * mix-up). Everything a variant does not break goes to the real client, so the rules it does not touch still pass.
 */
final class BrokenClients {

    private BrokenClients() {
    }

    // ================================================================ forwarding

    /** Forwards every call to a real client; a variant overrides {@link #wrap} and what its bug is in. */
    static class ForwardingClient implements LockClient {
        final LockClient delegate;

        ForwardingClient(LockClient delegate) {
            this.delegate = delegate;
        }

        /** The variant's view of one of the real client's locks; the lock itself by default. */
        DistributedLock wrap(DistributedLock lock) {
            return lock;
        }

        @Override
        public java.util.Optional<io.locksmith.LockInfo> inspect(String name, java.time.Duration timeout) {
            return delegate.inspect(name, timeout);
        }

        @Override
        public DistributedLock lock(String name) {
            return wrap(delegate.lock(name));
        }

        @Override
        public DistributedLock lock(String name, LockOptions options) {
            return wrap(delegate.lock(name, options));
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            return delegate.inspect(name);
        }

        @Override
        public List<LockInfo> list(String prefix, Duration timeout) {
            return delegate.list(prefix, timeout);
        }

        @Override
        public String clientId() {
            return delegate.clientId();
        }

        @Override
        public String describe() {
            return delegate.describe();
        }

        @Override
        public Set<Capability> capabilities() {
            return delegate.capabilities();
        }

        @Override
        public int heldCount() {
            return delegate.heldCount();
        }

        @Override
        public Duration minimumLeaseTime() {
            return delegate.minimumLeaseTime();
        }

        @Override
        public void close() {
            delegate.close();
        }

        @Override
        public DistributedSemaphore semaphore(String name, int permits) {
            return delegate.semaphore(name, permits);
        }

        @Override
        public DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
            return delegate.semaphore(name, permits, options);
        }

        @Override
        public DistributedReadWriteLock readWriteLock(String name) {
            return delegate.readWriteLock(name);
        }

        @Override
        public DistributedReadWriteLock readWriteLock(String name, LockOptions options, int maxReaders) {
            return delegate.readWriteLock(name, options, maxReaders);
        }

        @Override
        public LeaderElection election(String name) {
            return delegate.election(name);
        }

        @Override
        public LeaderElection election(String name, LockOptions options) {
            return delegate.election(name, options);
        }
    }

    static class ForwardingLock implements DistributedLock {
        final DistributedLock delegate;

        ForwardingLock(DistributedLock delegate) {
            this.delegate = delegate;
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public LockOptions options() {
            return delegate.options();
        }

        @Override
        public Lease acquire() {
            return delegate.acquire();
        }

        @Override
        public Lease acquire(Duration maxWait) {
            return delegate.acquire(maxWait);
        }

        @Override
        public Optional<Lease> tryAcquire() {
            return delegate.tryAcquire();
        }

        @Override
        public Optional<Lease> tryAcquire(Duration maxWait) {
            return delegate.tryAcquire(maxWait);
        }

        @Override
        public CompletableFuture<Lease> acquireAsync(Duration maxWait) {
            return delegate.acquireAsync(maxWait);
        }

        @Override
        public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration maxWait) {
            return delegate.tryAcquireAsync(maxWait);
        }

        @Override
        public boolean isHeldByCurrentThread() {
            return delegate.isHeldByCurrentThread();
        }

        @Override
        public Optional<LockInfo> inspect() {
            return delegate.inspect();
        }

        @Override
        public Lock asJavaLock() {
            return delegate.asJavaLock();
        }
    }

    static class ForwardingLease implements Lease {
        final Lease delegate;

        ForwardingLease(Lease delegate) {
            this.delegate = delegate;
        }

        @Override
        public String lockName() {
            return delegate.lockName();
        }

        @Override
        public long fencingToken() {
            return delegate.fencingToken();
        }

        @Override
        public HolderIdentity holder() {
            return delegate.holder();
        }

        @Override
        public boolean isHeld() {
            return delegate.isHeld();
        }

        @Override
        public void ensureHeld() {
            delegate.ensureHeld();
        }

        @Override
        public Lease onLost(Consumer<LeaseLostEvent> callback) {
            delegate.onLost(callback);
            return this;
        }

        @Override
        public int holdCount() {
            return delegate.holdCount();
        }

        @Override
        public Lease handOff() {
            delegate.handOff();
            return this;
        }

        @Override
        public void close() {
            delegate.close();
        }

        @Override
        public CompletableFuture<Void> closeAsync() {
            return delegate.closeAsync();
        }
    }

    /**
     * One store holding shared by several leases: the store lock is released with the last of them. The re-entry and
     * single-flight variants hand these out.
     */
    static final class SharedHolding {
        final Lease store;
        private final AtomicInteger open = new AtomicInteger(1);
        private final Runnable onLastClose;
        private final Runnable onHandOff;

        /**
         * @param onLastClose runs when the last lease of the holding is closed, before the store lock is released
         * @param onHandOff   runs when any lease of the holding is handed off
         */
        SharedHolding(Lease store, Runnable onLastClose, Runnable onHandOff) {
            this.store = store;
            this.onLastClose = onLastClose;
            this.onHandOff = onHandOff;
        }

        /** The first lease of the holding. */
        Lease first() {
            return new Share();
        }

        /** Another lease of the holding, or empty if its last lease was closed meanwhile. */
        Optional<Lease> share() {
            int count;
            do {
                count = open.get();
                if (count == 0) {
                    return Optional.empty();
                }
            } while (!open.compareAndSet(count, count + 1));
            return Optional.of(new Share());
        }

        private final class Share extends ForwardingLease {
            private final AtomicBoolean closed = new AtomicBoolean();

            Share() {
                super(SharedHolding.this.store);
            }

            @Override
            public int holdCount() {
                return open.get();
            }

            @Override
            public boolean isHeld() {
                return !closed.get() && delegate.isHeld();
            }

            @Override
            public Lease handOff() {
                onHandOff.run();
                delegate.handOff();
                return this;
            }

            @Override
            public void close() {
                if (closed.compareAndSet(false, true) && open.decrementAndGet() == 0) {
                    onLastClose.run();
                    delegate.close();
                }
            }

            @Override
            public CompletableFuture<Void> closeAsync() {
                if (closed.compareAndSet(false, true) && open.decrementAndGet() == 0) {
                    onLastClose.run();
                    return delegate.closeAsync();
                }
                return CompletableFuture.completedFuture(null);
            }
        }
    }

    // ================================================================ R4: re-entry by thread

    /** The defect of a {@link ThreadMapReentryClient}. */
    enum ReentryBug {
        /** {@link Lease#handOff()} reaches the real lease, but the thread stays in the map (R4.4). */
        IGNORES_HAND_OFF,
        /** The map is used whatever the lock's options say: {@code reentrant(false)} re-enters too (R4.5). */
        IGNORES_NON_REENTRANT_OPTION,
        /**
         * An asynchronous acquire's lease is put in the map under the thread that called {@code acquireAsync}, as
         * if that thread held it (R4.6).
         */
        BINDS_ASYNC_LEASE_TO_ITS_CALLER
    }

    /**
     * Re-entry kept in the client's own map of open holdings by lock name and thread, as Curator's
     * {@code InterProcessMutex} keeps it ({@code ConcurrentMap<Thread, LockData>}): an acquire by a thread that has an
     * open holding of the name gets another lease of it, with no store request. Correct but for its one
     * {@link ReentryBug}.
     */
    static final class ThreadMapReentryClient extends ForwardingClient {
        private record Key(String name, Thread thread) {
        }

        private final ReentryBug bug;
        private final Map<Key, SharedHolding> holdings = new ConcurrentHashMap<>();

        ThreadMapReentryClient(LockClient delegate, ReentryBug bug) {
            super(delegate);
            this.bug = bug;
        }

        @Override
        DistributedLock wrap(DistributedLock lock) {
            return new ForwardingLock(lock) {
                private boolean usesTheMap() {
                    return options().isReentrant() || bug == ReentryBug.IGNORES_NON_REENTRANT_OPTION;
                }

                private Optional<Lease> reentered() {
                    if (!usesTheMap()) {
                        return Optional.empty();
                    }
                    SharedHolding holding = holdings.get(new Key(name(), Thread.currentThread()));
                    return holding == null ? Optional.empty() : holding.share();
                }

                private Lease bound(Lease lease, Thread thread) {
                    if (!usesTheMap()) {
                        return lease;
                    }
                    Key key = new Key(name(), thread);
                    SharedHolding[] holding = new SharedHolding[1];
                    holding[0] = new SharedHolding(lease, () -> holdings.remove(key, holding[0]), () -> {
                        if (bug != ReentryBug.IGNORES_HAND_OFF) {
                            holdings.remove(key, holding[0]);
                        }
                    });
                    holdings.put(key, holding[0]);
                    return holding[0].first();
                }

                @Override
                public Lease acquire() {
                    return reentered().orElseGet(() -> bound(delegate.acquire(), Thread.currentThread()));
                }

                @Override
                public Lease acquire(Duration maxWait) {
                    return reentered().orElseGet(() -> bound(delegate.acquire(maxWait), Thread.currentThread()));
                }

                @Override
                public Optional<Lease> tryAcquire() {
                    Optional<Lease> reentered = reentered();
                    return reentered.isPresent() ? reentered
                            : delegate.tryAcquire().map(lease -> bound(lease, Thread.currentThread()));
                }

                @Override
                public Optional<Lease> tryAcquire(Duration maxWait) {
                    Optional<Lease> reentered = reentered();
                    return reentered.isPresent() ? reentered
                            : delegate.tryAcquire(maxWait).map(lease -> bound(lease, Thread.currentThread()));
                }

                @Override
                public CompletableFuture<Lease> acquireAsync(Duration maxWait) {
                    if (bug != ReentryBug.BINDS_ASYNC_LEASE_TO_ITS_CALLER) {
                        return delegate.acquireAsync(maxWait);
                    }
                    Thread caller = Thread.currentThread();
                    return delegate.acquireAsync(maxWait).thenApply(lease -> bound(lease, caller));
                }

                @Override
                public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration maxWait) {
                    if (bug != ReentryBug.BINDS_ASYNC_LEASE_TO_ITS_CALLER) {
                        return delegate.tryAcquireAsync(maxWait);
                    }
                    Thread caller = Thread.currentThread();
                    return delegate.tryAcquireAsync(maxWait).thenApply(lease -> lease.map(l -> bound(l, caller)));
                }

                @Override
                public boolean isHeldByCurrentThread() {
                    return (usesTheMap() && holdings.containsKey(new Key(name(), Thread.currentThread())))
                            || delegate.isHeldByCurrentThread();
                }
            };
        }
    }

    /**
     * Re-enters asynchronous leases by client: with no thread to bind them to, an asynchronous acquire of a name this
     * client holds through an earlier asynchronous acquire gets another lease of that holding, as a re-entry count kept
     * per client would give it. Any task of the application then enters the critical section that another task is in
     * (R4.6).
     */
    static final class AsyncReentryByClientClient extends ForwardingClient {
        private final Map<String, SharedHolding> asyncHoldings = new ConcurrentHashMap<>();

        AsyncReentryByClientClient(LockClient delegate) {
            super(delegate);
        }

        @Override
        DistributedLock wrap(DistributedLock lock) {
            return new ForwardingLock(lock) {
                private Optional<Lease> reentered() {
                    SharedHolding holding = asyncHoldings.get(name());
                    return holding == null ? Optional.empty() : holding.share();
                }

                private Lease held(Lease lease) {
                    SharedHolding[] holding = new SharedHolding[1];
                    holding[0] = new SharedHolding(lease, () -> asyncHoldings.remove(name(), holding[0]), () -> { });
                    asyncHoldings.put(name(), holding[0]);
                    return holding[0].first();
                }

                @Override
                public CompletableFuture<Lease> acquireAsync(Duration maxWait) {
                    Optional<Lease> reentered = reentered();
                    return reentered.isPresent() ? CompletableFuture.completedFuture(reentered.get())
                            : delegate.acquireAsync(maxWait).thenApply(this::held);
                }

                @Override
                public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration maxWait) {
                    Optional<Lease> reentered = reentered();
                    return reentered.isPresent() ? CompletableFuture.completedFuture(reentered)
                            : delegate.tryAcquireAsync(maxWait).thenApply(lease -> lease.map(this::held));
                }
            };
        }
    }

    // ================================================================ R10: asynchronous acquires

    /**
     * The asynchronous acquire as the blocking one on a pool thread ({@code CompletableFuture.supplyAsync(() ->
     * lock.acquire(maxWait), pool)}). Two ways to get it wrong, one per variant: see {@link #handsOff}.
     */
    static final class BlockingOnAPoolClient extends ForwardingClient {
        private final ExecutorService pool = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "broken-async-pool");
            thread.setDaemon(true);
            return thread;
        });
        /**
         * True: the lease is handed off the pool thread ({@link Lease#handOff()}) before it is handed out, but a cancel
         * of the future reaches neither the thread nor its wait, which goes on and takes the lock for nobody (R10.3).
         * False: the lease stays bound to the pool thread that acquired it, so the next task that thread runs, another
         * caller's acquire of the same name, re-enters it (R4.6; R10.1 when the pool happens to reuse that thread).
         */
        private final boolean handsOff;

        BlockingOnAPoolClient(LockClient delegate, boolean handsOff) {
            super(delegate);
            this.handsOff = handsOff;
        }

        @Override
        DistributedLock wrap(DistributedLock lock) {
            return new ForwardingLock(lock) {
                private Lease handedOut(Lease lease) {
                    return handsOff ? lease.handOff() : lease;
                }

                @Override
                public CompletableFuture<Lease> acquireAsync(Duration maxWait) {
                    return CompletableFuture.supplyAsync(() -> handedOut(delegate.acquire(maxWait)), pool);
                }

                @Override
                public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration maxWait) {
                    return CompletableFuture.supplyAsync(() -> delegate.tryAcquire(maxWait).map(this::handedOut), pool);
                }
            };
        }

        @Override
        public void close() {
            pool.shutdownNow();
            super.close();
        }
    }

    /**
     * Passes the asynchronous wait on in the wrong unit: the adapter carries the bound as a number of milliseconds and
     * hands it on as seconds ({@code Duration.ofSeconds(maxWait.toMillis())}), so a 400 ms wait lasts 400 s (R10.2).
     */
    static final class AsyncWaitInTheWrongUnitClient extends ForwardingClient {
        AsyncWaitInTheWrongUnitClient(LockClient delegate) {
            super(delegate);
        }

        @Override
        DistributedLock wrap(DistributedLock lock) {
            return new ForwardingLock(lock) {
                @Override
                public CompletableFuture<Lease> acquireAsync(Duration maxWait) {
                    return delegate.acquireAsync(Duration.ofSeconds(maxWait.toMillis()));
                }

                @Override
                public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration maxWait) {
                    return delegate.tryAcquireAsync(Duration.ofSeconds(maxWait.toMillis()));
                }
            };
        }
    }

    /**
     * Coalesces asynchronous acquires of one name at the wrong level, as a "single flight": an acquire made while
     * another of this client is under way joins it, and when that one gets the lock every acquire that joined completes
     * with a lease of the same holding. Two callers then work under one fencing token at once (R10.1).
     */
    static final class SingleFlightAsyncClient extends ForwardingClient {
        private final Map<String, CompletableFuture<SharedHolding>> inFlight = new ConcurrentHashMap<>();

        SingleFlightAsyncClient(LockClient delegate) {
            super(delegate);
        }

        @Override
        DistributedLock wrap(DistributedLock lock) {
            return new ForwardingLock(lock) {
                @Override
                public CompletableFuture<Lease> acquireAsync(Duration maxWait) {
                    CompletableFuture<SharedHolding> started = new CompletableFuture<>();
                    CompletableFuture<SharedHolding> flight = inFlight.putIfAbsent(name(), started);
                    if (flight == null) {
                        flight = started;
                        delegate.acquireAsync(maxWait).whenComplete((lease, failure) -> {
                            inFlight.remove(name(), started);
                            if (failure != null) {
                                started.completeExceptionally(failure);
                            } else {
                                // The first caller's lease; every joiner takes another share of it below.
                                started.complete(new SharedHolding(lease, () -> { }, () -> { }));
                            }
                        });
                        return flight.thenApply(SharedHolding::first);
                    }
                    return flight.thenApply(holding -> holding.share().orElseThrow(() -> new IllegalStateException(
                            "the shared holding of " + name() + " was closed before a joiner took it")));
                }
            };
        }
    }

    /**
     * Names the lock differently on the asynchronous path: it takes the lock under a key that carries the client's id
     * (the key of the client's own bookkeeping of its waits, passed on as the lock name), so asynchronous acquires of
     * two clients never exclude each other (R10.1).
     */
    static final class AsyncKeyedByClientClient extends ForwardingClient {
        AsyncKeyedByClientClient(LockClient delegate) {
            super(delegate);
        }

        @Override
        DistributedLock wrap(DistributedLock lock) {
            DistributedLock byClient = delegate.lock(delegate.clientId() + "/" + lock.name(), lock.options());
            return new ForwardingLock(lock) {
                @Override
                public CompletableFuture<Lease> acquireAsync(Duration maxWait) {
                    return byClient.acquireAsync(maxWait);
                }

                @Override
                public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration maxWait) {
                    return byClient.tryAcquireAsync(maxWait);
                }
            };
        }
    }

    /**
     * Never woken: the asynchronous acquire tries once, and if the lock is taken tries again only when its bound runs
     * out, on a timer ({@code delayedExecutor(maxWait)}), instead of waiting for the release (R10.4).
     */
    static final class AsyncRetriesAtTheBoundClient extends ForwardingClient {
        AsyncRetriesAtTheBoundClient(LockClient delegate) {
            super(delegate);
        }

        @Override
        DistributedLock wrap(DistributedLock lock) {
            return new ForwardingLock(lock) {
                @Override
                public CompletableFuture<Lease> acquireAsync(Duration maxWait) {
                    return tryAcquireAsync(maxWait).thenApply(lease -> lease.orElseThrow(
                            () -> new LockTimeoutException(name(), maxWait)));
                }

                @Override
                public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration maxWait) {
                    return delegate.tryAcquireAsync(Duration.ZERO).thenCompose(first -> {
                        if (first.isPresent() || maxWait.isZero()) {
                            return CompletableFuture.completedFuture(first);
                        }
                        return CompletableFuture.supplyAsync(delegate::tryAcquire, CompletableFuture.delayedExecutor(
                                maxWait.toNanos(), TimeUnit.NANOSECONDS));
                    });
                }
            };
        }
    }

    // ================================================================ R7.11: waiting at scale

    /**
     * Waits by polling: a bounded acquire is a loop of one-attempt {@code tryAcquire()} and a fixed sleep, as the
     * spin-retry loops that users write around {@code SET NX} do. Every waiting thread makes its own store requests, so
     * with a thousand threads on one name the store serves a thousand polls for every handoff (R7.11).
     */
    static final class PollingClient extends ForwardingClient {
        /** The sleep between two attempts of one waiter. */
        static final Duration POLL = Duration.ofMillis(10);

        PollingClient(LockClient delegate) {
            super(delegate);
        }

        @Override
        DistributedLock wrap(DistributedLock lock) {
            return new ForwardingLock(lock) {
                @Override
                public Lease acquire(Duration maxWait) {
                    return tryAcquire(maxWait).orElseThrow(() -> new LockTimeoutException(name(), maxWait));
                }

                @Override
                public Optional<Lease> tryAcquire(Duration maxWait) {
                    long deadline = System.nanoTime() + maxWait.toNanos();
                    while (true) {
                        Optional<Lease> lease = delegate.tryAcquire();
                        if (lease.isPresent() || System.nanoTime() - deadline >= 0) {
                            return lease;
                        }
                        try {
                            Thread.sleep(POLL.toMillis());
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new LockInterruptedException(name(), e);
                        }
                    }
                }
            };
        }
    }
}
