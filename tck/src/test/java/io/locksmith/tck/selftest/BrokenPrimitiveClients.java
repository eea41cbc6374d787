package io.locksmith.tck.selftest;

import io.locksmith.DistributedLock;
import io.locksmith.DistributedReadWriteLock;
import io.locksmith.DistributedSemaphore;
import io.locksmith.LeaderElection;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.PermitLease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Clients with one bug in a primitive each, over a real client: the bugs a hand-written semaphore, read-write lock or
 * election tends to have. {@code BrokenClientsTest} checks that the rule of each bug (SPEC R11 to R13) fails.
 */
final class BrokenPrimitiveClients {

    private BrokenPrimitiveClients() {
    }

    /** Accepts a semaphore of 0 permits (or fewer) as one of 1: lenient input, which R11.7 refuses. */
    static final class LenientPermitsClient extends BrokenClients.ForwardingClient {
        LenientPermitsClient(LockClient delegate) {
            super(delegate);
        }

        @Override
        public DistributedSemaphore semaphore(String name, int permits) {
            return delegate.semaphore(name, Math.max(1, permits));
        }
    }

    /** {@code release(id)} closes the client's latest permit lease of the semaphore, whatever the id says (R11.4). */
    static final class ReleasesTheLatestPermitClient extends BrokenClients.ForwardingClient {
        private final List<PermitLease> handedOut = new ArrayList<>();

        ReleasesTheLatestPermitClient(LockClient delegate) {
            super(delegate);
        }

        @Override
        public DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
            DistributedSemaphore real = delegate.semaphore(name, permits, options);
            return new ForwardingSemaphore(real) {
                @Override
                public PermitLease acquire(int count, Duration maxWait) {
                    PermitLease lease = real.acquire(count, maxWait);
                    synchronized (handedOut) {
                        handedOut.add(lease);
                    }
                    return lease;
                }

                @Override
                public boolean release(String permitId) {
                    synchronized (handedOut) {
                        for (int i = handedOut.size() - 1; i >= 0; i--) {
                            PermitLease lease = handedOut.get(i);
                            if (lease.isHeld() && lease.semaphoreName().equals(name)) {
                                lease.close();
                                return true;
                            }
                        }
                    }
                    return false;
                }
            };
        }
    }

    /** A downgrade that lets the write lease go and then takes a read lease: a writer can come in between (R12.4). */
    static final class DowngradeWithAGapClient extends BrokenClients.ForwardingClient {
        DowngradeWithAGapClient(LockClient delegate) {
            super(delegate);
        }

        @Override
        public DistributedReadWriteLock readWriteLock(String name, LockOptions options, int maxReaders) {
            DistributedReadWriteLock real = delegate.readWriteLock(name, options, maxReaders);
            return new ForwardingReadWriteLock(real) {
                @Override
                public Lease downgrade(Lease writeLease) {
                    writeLease.ensureHeld();
                    writeLease.close();
                    return real.readLock().acquire(Duration.ofSeconds(5));
                }
            };
        }
    }

    /**
     * An upgrade that silently lets the thread's read lease go and waits for the write lock, instead of refusing
     * (R12.5): the caller believes it still reads.
     */
    static final class SilentUpgradeClient extends BrokenClients.ForwardingClient {
        SilentUpgradeClient(LockClient delegate) {
            super(delegate);
        }

        @Override
        public DistributedReadWriteLock readWriteLock(String name, LockOptions options, int maxReaders) {
            DistributedReadWriteLock real = delegate.readWriteLock(name, options, maxReaders);
            ThreadLocal<List<Lease>> reads = ThreadLocal.withInitial(ArrayList::new);
            DistributedLock readView = new BrokenClients.ForwardingLock(real.readLock()) {
                @Override
                public Lease acquire(Duration maxWait) {
                    Lease lease = super.acquire(maxWait);
                    reads.get().add(lease);
                    return lease;
                }
            };
            DistributedLock writeView = new BrokenClients.ForwardingLock(real.writeLock()) {
                private void dropReads() {
                    reads.get().forEach(Lease::close);
                    reads.get().clear();
                }

                @Override
                public Lease acquire(Duration maxWait) {
                    dropReads();
                    return super.acquire(maxWait);
                }

                @Override
                public CompletableFuture<Lease> acquireAsync(Duration maxWait) {
                    dropReads();
                    return super.acquireAsync(maxWait);
                }
            };
            return new ForwardingReadWriteLock(real) {
                @Override
                public DistributedLock readLock() {
                    return readView;
                }

                @Override
                public DistributedLock writeLock() {
                    return writeView;
                }
            };
        }
    }

    /** An observer told of leaders only, never of "no leader" (etcd's Observe, etcd #19597): R13.5. */
    static final class ObserverSkipsNoLeaderClient extends BrokenClients.ForwardingClient {
        ObserverSkipsNoLeaderClient(LockClient delegate) {
            super(delegate);
        }

        @Override
        public LeaderElection election(String name, LockOptions options) {
            LeaderElection real = delegate.election(name, options);
            return new ForwardingElection(real) {
                @Override
                public AutoCloseable observe(Duration interval, Consumer<Optional<LockInfo>> observer) {
                    return real.observe(interval, leader -> leader.ifPresent(present -> observer.accept(leader)));
                }
            };
        }
    }

    static class ForwardingSemaphore implements DistributedSemaphore {
        final DistributedSemaphore delegate;

        ForwardingSemaphore(DistributedSemaphore delegate) {
            this.delegate = delegate;
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public int permits() {
            return delegate.permits();
        }

        @Override
        public LockOptions options() {
            return delegate.options();
        }

        @Override
        public PermitLease acquire(int permits, Duration maxWait) {
            return delegate.acquire(permits, maxWait);
        }

        @Override
        public Optional<PermitLease> tryAcquire(int permits, Duration maxWait) {
            return delegate.tryAcquire(permits, maxWait);
        }

        @Override
        public CompletableFuture<PermitLease> acquireAsync(int permits, Duration maxWait) {
            return delegate.acquireAsync(permits, maxWait);
        }

        @Override
        public boolean release(String permitId) {
            return delegate.release(permitId);
        }

        @Override
        public List<LockInfo> holders(Duration timeout) {
            return delegate.holders(timeout);
        }

        @Override
        public DistributedLock asLock(int permits) {
            return delegate.asLock(permits);
        }
    }

    static class ForwardingReadWriteLock implements DistributedReadWriteLock {
        final DistributedReadWriteLock delegate;

        ForwardingReadWriteLock(DistributedReadWriteLock delegate) {
            this.delegate = delegate;
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public List<LockInfo> holders(Duration timeout) {
            return delegate.holders(timeout);
        }

        @Override
        public int maxReaders() {
            return delegate.maxReaders();
        }

        @Override
        public DistributedLock readLock() {
            return delegate.readLock();
        }

        @Override
        public DistributedLock writeLock() {
            return delegate.writeLock();
        }

        @Override
        public Lease downgrade(Lease writeLease) {
            return delegate.downgrade(writeLease);
        }
    }

    static class ForwardingElection implements LeaderElection {
        final LeaderElection delegate;

        ForwardingElection(LeaderElection delegate) {
            this.delegate = delegate;
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public void join() {
            delegate.join();
        }

        @Override
        public void leave() {
            delegate.leave();
        }

        @Override
        public boolean isLeader() {
            return delegate.isLeader();
        }

        @Override
        public OptionalLong term() {
            return delegate.term();
        }

        @Override
        public Lease awaitLeadership(Duration maxWait) {
            return delegate.awaitLeadership(maxWait);
        }

        @Override
        public Optional<LockInfo> leader(Duration timeout) {
            return delegate.leader(timeout);
        }

        @Override
        public LeaderElection onElected(Consumer<Lease> listener) {
            delegate.onElected(listener);
            return this;
        }

        @Override
        public LeaderElection onRevoked(Consumer<Lease> listener) {
            delegate.onRevoked(listener);
            return this;
        }

        @Override
        public AutoCloseable observe(Duration interval, Consumer<Optional<LockInfo>> observer) {
            return delegate.observe(interval, observer);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
