package io.locksmith.internal;

import io.locksmith.HolderIdentity;
import io.locksmith.LeaderElection;
import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockInfo;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockOptions;
import io.locksmith.LockTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Leader election as a lock ({@code NAME#leader}) whose lease is the term: a candidate campaigns with asynchronous
 * acquires (no thread held while it waits), keeps the term by the shared client's renewal without a maximum hold,
 * and learns that the term ended from the lease's loss signal, which comes at the local deadline, before the store
 * lets another candidate in. Nothing here times or renews anything itself.
 */
final class DefaultLeaderElection implements LeaderElection {

    private static final Logger LOG = LoggerFactory.getLogger("io.locksmith");
    /** The bound of one campaign acquire; a candidate that is not elected within it campaigns again at once. */
    static final Duration CAMPAIGN_WAIT = Duration.ofSeconds(30);
    private static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** The shortest observation interval: a tighter poll would load the store for nothing. */
    static final Duration MIN_OBSERVE_INTERVAL = Duration.ofMillis(10);

    private final DefaultLockClient client;
    private final String name;
    private final DefaultDistributedLock lock;
    /** The candidate's identity, taken on the thread that joined: every campaign's term shows it. */
    private volatile HolderIdentity candidate;
    private final List<Consumer<Lease>> electedListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<Lease>> revokedListeners = new CopyOnWriteArrayList<>();
    private final List<Observation> observations = new CopyOnWriteArrayList<>();

    // Guarded by this.
    private boolean joined;
    private boolean closed;
    /** Incremented by every join and leave, so that a campaign of an earlier membership cannot elect. */
    private long membership;
    private CompletableFuture<Optional<Lease>> campaign;
    private Term term;
    private CompletableFuture<Term> nextTerm = new CompletableFuture<>();
    private long retryNanos = FIRST_RETRY_NANOS;

    DefaultLeaderElection(DefaultLockClient client, String name, LockOptions options) {
        this.client = client;
        this.name = SlotSemaphore.validName(name, "election");
        Objects.requireNonNull(options, "options cannot be null");
        // A term is renewed while the candidate lives: no maximum hold, never re-entered by a thread.
        LockOptions termOptions = options.isRenewing()
                ? options.toBuilder().unboundedHold().reentrant(false).build()
                : options.toBuilder().reentrant(false).build();
        this.lock = (DefaultDistributedLock) client.lock(name + "#leader", termOptions);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void join() {
        long current;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("election '" + name + "' is closed");
            }
            client.ensureOpen();
            if (joined) {
                return;
            }
            joined = true;
            candidate = client.newOwner().holder();
            current = ++membership;
        }
        campaign(current);
    }

    private void campaign(long forMembership) {
        // The campaign's place is taken under the monitor; the acquire starts outside it, since its completions call
        // back into this election from the client's threads.
        CompletableFuture<Optional<Lease>> attempt = new CompletableFuture<>();
        synchronized (this) {
            if (!joined || forMembership != membership || term != null || campaign != null) {
                return;
            }
            campaign = attempt;
        }
        CompletableFuture<Optional<Lease>> started;
        try {
            started = lock.tryAcquireAsync(CAMPAIGN_WAIT, candidate);
        } catch (IllegalStateException e) {
            synchronized (this) {
                joined = false; // the client is closed
                if (campaign == attempt) {
                    campaign = null;
                }
            }
            return;
        }
        attempt.whenComplete((lease, failure) -> {
            if (failure instanceof CancellationException) {
                started.cancel(false); // the lock releases a term granted at the moment of the cancel
            }
        });
        started.whenComplete((lease, failure) -> {
            if (failure != null) {
                attempt.completeExceptionally(failure);
            } else if (!attempt.complete(lease)) {
                lease.ifPresent(Lease::closeAsync);
            }
        });
        attempt.whenComplete((lease, failure) -> {
            synchronized (this) {
                if (campaign == attempt) {
                    campaign = null;
                }
            }
            if (failure == null) {
                if (lease.isPresent()) {
                    elected(forMembership, lease.get());
                } else {
                    campaign(forMembership); // not elected within this campaign's bound: campaign again
                }
                return;
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof CancellationException) {
                return;
            }
            if (cause instanceof LockTimeoutException) {
                campaign(forMembership);
            } else if (cause instanceof IllegalStateException) {
                synchronized (this) {
                    joined = false; // the client was closed
                }
            } else {
                long delay;
                synchronized (this) {
                    delay = retryNanos;
                    retryNanos = Math.min(MAX_RETRY_NANOS, retryNanos * 2);
                }
                LOG.debug("election '{}': campaign failed, trying again in {} ms", name,
                        TimeUnit.NANOSECONDS.toMillis(delay), cause);
                if (client.keeper.runLater(() -> campaign(forMembership), delay) == null) {
                    synchronized (this) {
                        joined = false;
                    }
                }
            }
        });
    }

    private void elected(long forMembership, Lease lease) {
        if (!lease.isHeld()) {
            // Lost between the grant and here: no term to report, and none a waiter may believe in. Campaign again,
            // after a pause: a session that keeps failing must not be asked again at once.
            lease.closeAsync();
            client.keeper.runLater(() -> campaign(forMembership), FIRST_RETRY_NANOS);
            return;
        }
        Term won;
        CompletableFuture<Term> waiting;
        synchronized (this) {
            if (!joined || closed || forMembership != membership) {
                won = null;
                waiting = null;
            } else {
                won = new Term(lease);
                term = won;
                retryNanos = FIRST_RETRY_NANOS;
                waiting = nextTerm;
                nextTerm = new CompletableFuture<>();
            }
        }
        if (won == null) {
            lease.closeAsync();
            return;
        }
        for (Consumer<Lease> listener : electedListeners) {
            runListener(listener, won, "elected");
        }
        waiting.complete(won);
        // After the elected listeners, so that they always come first; a loss already there is reported at once.
        lease.onLost(event -> ended(won, true));
    }

    /** A term ended: lost, or closed by its holder. Campaigns again if still joined. */
    private void ended(Term ended, boolean campaignAgain) {
        long current;
        synchronized (this) {
            if (term != ended) {
                return;
            }
            term = null;
            current = membership;
        }
        for (Consumer<Lease> listener : revokedListeners) {
            runListener(listener, ended, "revoked");
        }
        if (campaignAgain) {
            campaign(current);
        }
    }

    private void runListener(Consumer<Lease> listener, Lease lease, String what) {
        try {
            listener.accept(lease);
        } catch (RuntimeException e) {
            LOG.warn("an {} listener of election '{}' failed", what, name, e);
        }
    }

    @Override
    public void leave() {
        Term current;
        CompletableFuture<Optional<Lease>> running;
        synchronized (this) {
            if (!joined) {
                return;
            }
            joined = false;
            membership++;
            current = term;
            running = campaign;
            campaign = null;
        }
        if (running != null) {
            running.cancel(false); // a lease granted at the moment of the cancel is released by the lock
        }
        if (current != null) {
            current.close(); // reports the end to the revoked listeners
        }
    }

    @Override
    public boolean isLeader() {
        Term current;
        synchronized (this) {
            current = term;
        }
        return current != null && current.isHeld();
    }

    @Override
    public OptionalLong term() {
        Term current;
        synchronized (this) {
            current = term;
        }
        return current != null && current.isHeld() ? OptionalLong.of(current.fencingToken()) : OptionalLong.empty();
    }

    @Override
    public Lease awaitLeadership(Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait cannot be null");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, was " + maxWait + " [election '" + name
                    + "']");
        }
        CompletableFuture<Term> waiting;
        Term current;
        synchronized (this) {
            if (!joined) {
                throw new IllegalStateException("this candidate has not joined election '" + name + "'");
            }
            current = term;
            waiting = nextTerm;
        }
        if (current != null && current.isHeld()) {
            return current;
        }
        try {
            return waiting.get(DefaultLockClient.saturatedNanos(maxWait), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(name, e);
        } catch (TimeoutException e) {
            throw new LockTimeoutException(name, maxWait);
        } catch (ExecutionException e) {
            throw SlotSemaphore.rethrown(e.getCause());
        }
    }

    @Override
    public Optional<LockInfo> leader(Duration timeout) {
        return client.inspect(lock.name(), timeout).map(info -> new LockInfo(name, info.holder(), info.fencingToken(),
                info.remaining(), info.waiters()));
    }

    @Override
    public LeaderElection onElected(Consumer<Lease> listener) {
        electedListeners.add(Objects.requireNonNull(listener, "listener cannot be null"));
        return this;
    }

    @Override
    public LeaderElection onRevoked(Consumer<Lease> listener) {
        revokedListeners.add(Objects.requireNonNull(listener, "listener cannot be null"));
        return this;
    }

    @Override
    public AutoCloseable observe(Duration interval, Consumer<Optional<LockInfo>> observer) {
        Objects.requireNonNull(interval, "interval cannot be null");
        Objects.requireNonNull(observer, "observer cannot be null");
        if (interval.compareTo(MIN_OBSERVE_INTERVAL) < 0) {
            throw new IllegalArgumentException("interval must be at least " + MIN_OBSERVE_INTERVAL + ", was " + interval
                    + " [election '" + name + "']");
        }
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("election '" + name + "' is closed");
            }
        }
        client.ensureOpen();
        Observation observation = new Observation(DefaultLockClient.saturatedNanos(interval), observer);
        observations.add(observation);
        observation.schedule(0);
        return observation::stop;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (Observation observation : observations) {
            observation.stop();
        }
        leave();
    }

    /** Reads who leads every interval and tells the observer of each change, in term order. */
    private final class Observation {
        private final long intervalNanos;
        private final Consumer<Optional<LockInfo>> observer;
        private volatile boolean stopped;
        private volatile ScheduledFuture<?> next;
        private boolean reported;
        private Optional<LockInfo> last = Optional.empty();
        private long highestTerm = Long.MIN_VALUE;
        /** Terms are ordered by their tokens only where the store's tokens increase. */
        private final boolean ordered = client.capabilities().contains(io.locksmith.Capability.FENCING);

        Observation(long intervalNanos, Consumer<Optional<LockInfo>> observer) {
            this.intervalNanos = intervalNanos;
            this.observer = observer;
        }

        void schedule(long delayNanos) {
            if (stopped) {
                return;
            }
            next = client.keeper.runLater(() -> client.storeCalls.runAsync(name, this::read), delayNanos);
            if (next == null) {
                stopped = true; // the client is closed
            }
        }

        private void read() {
            if (stopped) {
                return;
            }
            try {
                Optional<LockInfo> now = leader(Duration.ofNanos(Math.max(intervalNanos,
                        TimeUnit.SECONDS.toNanos(1))));
                report(now);
            } catch (IllegalStateException e) {
                stopped = true; // the client is closed
                return;
            } catch (RuntimeException e) {
                LOG.debug("election '{}': a leader observation failed; the next read reports", name, e);
            }
            schedule(intervalNanos);
        }

        private synchronized void report(Optional<LockInfo> now) {
            if (ordered && now.isPresent() && now.get().fencingToken() < highestTerm) {
                return; // an earlier term, read late: never report going back
            }
            boolean changed = !reported || now.isPresent() != last.isPresent()
                    || now.isPresent() && (now.get().fencingToken() != last.get().fencingToken()
                    || !now.get().holder().clientId().equals(last.get().holder().clientId()));
            if (!changed || stopped) {
                return;
            }
            reported = true;
            last = now;
            now.ifPresent(info -> highestTerm = Math.max(highestTerm, info.fencingToken()));
            try {
                observer.accept(now);
            } catch (RuntimeException e) {
                LOG.warn("an observer of election '{}' failed", name, e);
            }
        }

        void stop() {
            stopped = true;
            ScheduledFuture<?> scheduled = next;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
            observations.remove(this);
        }
    }

    /** A term's lease as the candidate sees it: closing it ends the term (and the candidate campaigns again). */
    private final class Term implements Lease {
        private final Lease lease;

        Term(Lease lease) {
            this.lease = lease;
        }

        @Override
        public String lockName() {
            return name;
        }

        @Override
        public long fencingToken() {
            return lease.fencingToken();
        }

        @Override
        public HolderIdentity holder() {
            return lease.holder();
        }

        @Override
        public boolean isHeld() {
            return lease.isHeld();
        }

        @Override
        public void ensureHeld() {
            lease.ensureHeld();
        }

        @Override
        public Lease onLost(Consumer<LeaseLostEvent> callback) {
            lease.onLost(callback);
            return this;
        }

        @Override
        public int holdCount() {
            return lease.holdCount();
        }

        @Override
        public Lease handOff() {
            lease.handOff();
            return this;
        }

        @Override
        public void close() {
            try {
                lease.close();
            } finally {
                ended(this, true);
            }
        }

        @Override
        public CompletableFuture<Void> closeAsync() {
            CompletableFuture<Void> released = lease.closeAsync();
            ended(this, true);
            return released;
        }

        @Override
        public String toString() {
            return "Term[" + name + ", token " + lease.fencingToken() + ", " + (lease.isHeld() ? "held" : "ended") + "]";
        }
    }

    @Override
    public String toString() {
        return "LeaderElection[" + name + "]";
    }
}
