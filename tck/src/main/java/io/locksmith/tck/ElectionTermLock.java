package io.locksmith.tck;

import io.locksmith.DistributedLock;
import io.locksmith.HolderIdentity;
import io.locksmith.Lease;
import io.locksmith.LeaderElection;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockOptions;
import io.locksmith.LockTimeoutException;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

/**
 * An election seen as a lock, for {@link LockShape#ELECTION_TERM}: each holding is one candidate's term. An acquire
 * joins a new candidate and waits for its leadership; a candidate not elected within the wait leaves. Closing the
 * holding makes the candidate leave (closing a term itself would campaign again). So the workload and the fault rules
 * see a leader as a holder: two leaders whose believed terms overlap are two holders inside at once, and a deposed
 * leader's late write carries an older term's token.
 *
 * <p>{@link #tryAcquire()} without a wait first asks the store who leads, and answers empty if someone does: a
 * campaign is asynchronous, so a wait of zero would end before the store answered the candidate. Only when nobody
 * leads does it join and wait up to {@link #FIRST_CAMPAIGN} for the campaign's answer.
 */
final class ElectionTermLock implements DistributedLock {

    /** How long a {@code tryAcquire()} of a free election waits for its candidate's campaign to be answered. */
    static final Duration FIRST_CAMPAIGN = Duration.ofSeconds(2);

    /** The asynchronous acquires block a thread of their own: this is a test view, not the client's own waiting. */
    private static final Executor OWN_THREAD = task -> {
        Thread thread = new Thread(task, "election-term-acquire");
        thread.setDaemon(true);
        thread.start();
    };

    private final LockClient client;
    private final String name;
    private final LockOptions options;

    ElectionTermLock(LockClient client, String name, LockOptions options) {
        this.client = Objects.requireNonNull(client, "client cannot be null");
        this.options = Objects.requireNonNull(options, "options cannot be null");
        // Validates the name as the election does, at once.
        client.election(name, options);
        this.name = name;
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
        return acquire(Duration.ofNanos(Long.MAX_VALUE));
    }

    @Override
    public Lease acquire(Duration maxWait) {
        return tryAcquire(maxWait).orElseThrow(() -> new LockTimeoutException(name, maxWait));
    }

    @Override
    public Optional<Lease> tryAcquire() {
        if (client.election(name, options).leader(FIRST_CAMPAIGN).isPresent()) {
            return Optional.empty();
        }
        return tryAcquire(FIRST_CAMPAIGN);
    }

    @Override
    public Optional<Lease> tryAcquire(Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait cannot be null");
        LeaderElection candidate = client.election(name, options);
        candidate.join();
        try {
            return Optional.of(new TermHolding(candidate.awaitLeadership(maxWait), candidate));
        } catch (LockTimeoutException e) {
            candidate.close();
            return Optional.empty();
        } catch (RuntimeException | Error e) {
            candidate.close();
            if (e instanceof LockInterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw e;
        }
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration maxWait) {
        return CompletableFuture.supplyAsync(() -> acquire(maxWait), OWN_THREAD);
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration maxWait) {
        return CompletableFuture.supplyAsync(() -> tryAcquire(maxWait), OWN_THREAD);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return false; // a term belongs to its candidate, not to a thread
    }

    @Override
    public Optional<LockInfo> inspect() {
        return client.election(name, options).leader(Duration.ofSeconds(5));
    }

    /** @throws UnsupportedOperationException always: a term is not a {@code java.util.concurrent.locks.Lock} */
    @Override
    public Lock asJavaLock() {
        throw new UnsupportedOperationException("an election's term is not a java.util.concurrent.locks.Lock");
    }

    /** A term as a holding: held while the term is; closing it makes the candidate leave. */
    private static final class TermHolding implements Lease {
        private final Lease term;
        private final LeaderElection candidate;

        TermHolding(Lease term, LeaderElection candidate) {
            this.term = term;
            this.candidate = candidate;
        }

        @Override
        public String lockName() {
            return term.lockName();
        }

        @Override
        public long fencingToken() {
            return term.fencingToken();
        }

        @Override
        public HolderIdentity holder() {
            return term.holder();
        }

        @Override
        public boolean isHeld() {
            return term.isHeld() && candidate.isLeader();
        }

        @Override
        public void ensureHeld() {
            term.ensureHeld();
        }

        @Override
        public Lease onLost(Consumer<LeaseLostEvent> callback) {
            term.onLost(callback);
            return this;
        }

        @Override
        public int holdCount() {
            return 1;
        }

        @Override
        public Lease handOff() {
            return this;
        }

        @Override
        public void close() {
            candidate.close();
        }

        @Override
        public CompletableFuture<Void> closeAsync() {
            return CompletableFuture.runAsync(candidate::close, OWN_THREAD);
        }

        @Override
        public String toString() {
            return "TermHolding[" + term + "]";
        }
    }
}
