package io.locksmith;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Leader election among the candidates that {@linkplain #join() join} under one name: obtained from
 * {@link LockClient#election(String)}. At most one candidate is leader at a time, as the store sees it; each
 * leadership (a term) is a {@link Lease} of the lock {@code NAME#leader}, renewed without a maximum hold while the
 * candidate lives, with a fencing token that is the term's number: strictly increasing per name (on stores that
 * declare {@link Capability#FENCING}).
 * <pre>{@code
 * LeaderElection election = client.election("billing-scheduler");
 * election.onElected(term -> log.info("leader, term {}", term.fencingToken()))
 *         .onRevoked(term -> log.warn("no longer leader"));
 * election.join();
 * ...
 * if (election.isLeader()) { runBatch(election.term().orElseThrow()); }
 * }</pre>
 *
 * <h2>Safety</h2>
 * A term ends locally before the store would let another candidate in: {@link #isLeader()} turns false, and the
 * revoked listeners run, when the term's lease can no longer be trusted (its renewals failed up to the local
 * deadline, which comes before the store's expiry), as for any {@link Lease}. Work done as leader must still pass
 * the term's token to the resource it changes: a leader paused past its lease cannot be stopped by any check made
 * before the pause.
 *
 * <h2>Listeners</h2>
 * {@link #onElected} and {@link #onRevoked} listeners run on the client's threads, in term order, and must not
 * block. A candidate that loses its term and is still joined campaigns again at once.
 *
 * <p>All methods are thread-safe. Closing the election leaves it.
 */
public interface LeaderElection extends AutoCloseable {

    /** The name of this election. */
    String name();

    /**
     * Becomes a candidate: campaigns in the background, without holding a thread, until elected, and again after
     * each term it loses, until {@link #leave()}. Does nothing if already joined.
     *
     * @throws IllegalStateException if the election or its client is closed
     */
    void join();

    /**
     * Stops being a candidate: ends the current term if this candidate is leader (releasing it in the store, so
     * another candidate is elected at once), and stops campaigning. Does nothing if not joined; {@link #join()}
     * may be called again afterwards.
     *
     * @throws LockStoreException if the store could not be reached to release the term; it ends at its TTL
     */
    void leave();

    /** Whether this candidate is leader now: joined, elected, and its term still trusted. A local check. */
    boolean isLeader();

    /** The current term's fencing token, if this candidate is leader now. */
    java.util.OptionalLong term();

    /**
     * Waits until this candidate is leader, at most {@code maxWait}.
     *
     * @return the term's lease (closing it ends the term; the candidate then campaigns again)
     * @throws IllegalStateException     if this candidate has not joined
     * @throws LockTimeoutException      if it was not elected within {@code maxWait}
     * @throws LockInterruptedException  if the thread is interrupted while waiting (the interrupt flag is set again)
     * @throws NullPointerException      if {@code maxWait} is null
     * @throws IllegalArgumentException  if {@code maxWait} is negative
     */
    Lease awaitLeadership(Duration maxWait);

    /**
     * Asks the store who leads now, waiting at most {@code timeout}.
     *
     * @return the leader's identity and its term's token ({@link LockInfo#fencingToken()}), or empty if there is
     *         no leader now
     * @throws NullPointerException     if {@code timeout} is null
     * @throws IllegalArgumentException if {@code timeout} is not positive
     * @throws LockStoreException       if the store could not be asked within {@code timeout}
     */
    Optional<LockInfo> leader(Duration timeout);

    /**
     * Adds a listener called with the term's lease each time this candidate is elected.
     *
     * @return this election
     * @throws NullPointerException if {@code listener} is null
     */
    LeaderElection onElected(Consumer<Lease> listener);

    /**
     * Adds a listener called with the term's lease each time a term of this candidate ends: lost ({@code
     * lease.ensureHeld()} then throws {@link LockLostException} with the reason), closed, or left.
     *
     * @return this election
     * @throws NullPointerException if {@code listener} is null
     */
    LeaderElection onRevoked(Consumer<Lease> listener);

    /**
     * Watches who leads, whether or not this client is a candidate: {@code observer} is called with the store's
     * answer ({@link #leader}) when it changes, and once at the start; empty means no leader. Terms are reported in
     * increasing order (a term never follows a greater one); a term shorter than {@code interval} may be missed.
     * Store failures are skipped (the next read reports). Runs until the returned handle is closed or the election
     * is closed; the observer runs on a shared timer thread and must not block.
     *
     * @param interval how often the store is read
     * @return a handle that stops the watch
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code interval} is shorter than 10 ms
     */
    AutoCloseable observe(Duration interval, Consumer<Optional<LockInfo>> observer);

    /** Leaves the election (see {@link #leave()}) and stops every observer. Closing twice does nothing. */
    @Override
    void close();
}
