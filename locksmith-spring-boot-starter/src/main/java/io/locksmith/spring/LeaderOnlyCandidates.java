package io.locksmith.spring;

import io.locksmith.LeaderElection;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The elections of {@link LeaderOnly} methods: one candidate per name, joined when the application starts (or at the
 * first call of a method found later), left when it stops. It knows the current term of each and the calls running
 * under it, whose threads it interrupts when the term ends.
 */
final class LeaderOnlyCandidates implements SmartLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger("io.locksmith.spring.LeaderOnly");

    private final ObjectProvider<LockClient> client;
    /** Election names found on proxied methods, joined at {@link #start()}. */
    private final Set<String> names = ConcurrentHashMap.newKeySet();
    private final Map<String, Candidate> candidates = new ConcurrentHashMap<>();
    private volatile boolean running;
    /** Set by {@link #stop()}: a call that comes after (a last tick during shutdown) must not join again. */
    private volatile boolean stopped;

    LeaderOnlyCandidates(ObjectProvider<LockClient> client) {
        this.client = client;
    }

    /** Records an election to join at start (called as proxies are made, before the client may exist). */
    void register(String name) {
        names.add(name);
        if (running) {
            candidate(name);
        }
    }

    /**
     * The joined candidate of {@code name}, joining it now if it is not yet; null once the application is stopping
     * (the call is then skipped).
     */
    Candidate candidate(String name) {
        if (stopped) {
            return null;
        }
        return candidates.computeIfAbsent(name, key -> new Candidate(client.getObject().election(key)));
    }

    @Override
    public void start() {
        stopped = false;
        running = true;
        for (String name : names) {
            try {
                candidate(name);
            } catch (RuntimeException e) {
                // A store not reachable at start: the first call joins (and is skipped until elected).
                LOG.warn("@LeaderOnly: could not join election '{}' at start ({}); the first call will", name,
                        e.toString());
            }
        }
    }

    @Override
    public void stop() {
        stopped = true;
        running = false;
        List<Candidate> all = new ArrayList<>(candidates.values());
        candidates.clear();
        for (Candidate candidate : all) {
            try {
                candidate.election.close();
            } catch (RuntimeException e) {
                LOG.warn("@LeaderOnly: leaving election '{}' failed; its term ends at its lease time",
                        candidate.election.name(), e);
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Joins after the client is usable, leaves before it closes. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 1000;
    }

    /** One election this instance is a candidate of. */
    static final class Candidate {
        final LeaderElection election;
        private volatile Lease term;
        private final Set<Run> runs = ConcurrentHashMap.newKeySet();

        Candidate(LeaderElection election) {
            this.election = election;
            election.onElected(lease -> {
                term = lease;
                LOG.info("@LeaderOnly: leader of '{}', term {}", election.name(), lease.fencingToken());
            });
            election.onRevoked(lease -> {
                if (term == lease) {
                    term = null;
                }
                LOG.info("@LeaderOnly: term {} of '{}' ended; {} running call(s) interrupted", lease.fencingToken(),
                        election.name(), runs.size());
                for (Run run : runs) {
                    run.revoke(lease);
                }
            });
            election.join();
        }

        /** The term this instance leads now, or null. */
        Lease currentTerm() {
            Lease current = term;
            return current != null && election.isLeader() && current.isHeld() ? current : null;
        }

        /** Starts a call under {@code term} on the calling thread; close the result when the call ends. */
        Run run(Lease term) {
            Run run = new Run(Thread.currentThread(), term);
            runs.add(run);
            if (!term.isHeld()) {
                run.revoke(term); // ended between the check and the registration
            }
            return run;
        }

        final class Run implements AutoCloseable {
            private final Thread thread;
            private final Lease term;
            private boolean done;
            private boolean interrupted;

            Run(Thread thread, Lease term) {
                this.thread = thread;
                this.term = term;
            }

            synchronized void revoke(Lease ended) {
                if (ended == term && !done && !interrupted) {
                    interrupted = true;
                    thread.interrupt();
                }
            }

            /** Ends the call; clears the interrupt this run set, so the caller's thread goes on clean. */
            @Override
            public synchronized void close() {
                done = true;
                runs.remove(this);
                if (interrupted) {
                    Thread.interrupted();
                }
            }
        }
    }
}
