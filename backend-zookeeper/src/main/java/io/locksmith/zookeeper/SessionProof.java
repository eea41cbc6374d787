package io.locksmith.zookeeper;

import java.util.ArrayList;
import java.util.List;

/**
 * Until when this client's ZooKeeper session is certainly alive at the ensemble's leader, from what the client
 * itself has seen: the deadline past which a held lock must count as lost, because the leader may have expired
 * the session and given the lock to someone else.
 *
 * <p>Why it is not simply "the last answer plus the session timeout": a member answers reads from its own state
 * and answers pings itself, also when it is cut from the leader (until it gives up on the leader after
 * {@code syncLimit x tickTime}). The leader keeps the session alive only when it hears of the client: a follower
 * passes the sessions its clients touched to the leader in its reply to the leader's ping, every
 * {@code tickTime / 2}. So:
 * <ul>
 * <li>Only an answer that went through the leader counts: a {@code sync} (the member forwards it to the leader
 *     and answers after the leader did).</li>
 * <li>A {@code sync} sent at {@code t_k} and answered proves that the leader has processed every ping reply the
 *     member sent before it forwarded that sync (the link is one ordered TCP stream), so every touch the member
 *     saw before {@code t_k - tickTime / 2}. An earlier confirmed contact sent at {@code t_j <= t_k - relay} was
 *     therefore passed on: the leader touched the session at or after {@code t_j}, and cannot expire it before
 *     {@code t_j + sessionTimeout}. That is the deadline, less the drift allowance.</li>
 * <li>{@code relay} is a third of the negotiated session timeout: ZooKeeper negotiates at least
 *     {@code 2 x tickTime} (its default {@code minSessionTimeout}), so {@code tickTime / 2 <= timeout / 4}, and
 *     the twelfth left over covers the ping's transit and the leader's scheduling. A server whose
 *     {@code minSessionTimeout} was set below {@code 1.5 x tickTime} breaks this; {@code lockctl doctor} checks.</li>
 * </ul>
 * Contacts are counted per connection: a contact confirmed through one member says nothing about what another
 * member passed on, so a reconnection drops the contacts not yet proven (what is proven stays proven).
 */
final class SessionProof {

    private long sessionId;
    /** Changes on every connection change; a contact sent in an older epoch is not counted. */
    private int epoch;
    /** The leader touched the session at or after this time (nanoTime), for certain. */
    private long provenTouchAt;
    private long sessionNanos;
    /** Send times of confirmed contacts whose touch may not have reached the leader yet, oldest first. */
    private final List<Long> unproven = new ArrayList<>();

    /**
     * A session was opened by a request sent after {@code sentBefore}: the leader created it, a touch, after
     * that time.
     */
    synchronized void started(long session, long sentBefore, long negotiatedTimeoutNanos) {
        if (session == sessionId) {
            return;
        }
        sessionId = session;
        provenTouchAt = sentBefore;
        sessionNanos = negotiatedTimeoutNanos;
        unproven.clear();
        epoch++;
    }

    /** The connection changed (suspended, reconnected): contacts not yet proven cannot be proven any more. */
    synchronized void connectionChanged() {
        unproven.clear();
        epoch++;
    }

    synchronized int epoch() {
        return epoch;
    }

    /**
     * A contact sent at {@code sentAt} (in {@code contactEpoch}) was answered through the leader.
     *
     * @return whether the deadline moved
     */
    synchronized boolean confirmed(long session, int contactEpoch, long sentAt, long negotiatedTimeoutNanos) {
        if (session != sessionId || contactEpoch != epoch) {
            return false;
        }
        sessionNanos = negotiatedTimeoutNanos;
        long relay = negotiatedTimeoutNanos / 3;
        long before = provenTouchAt;
        while (!unproven.isEmpty() && unproven.get(0) - (sentAt - relay) <= 0) {
            provenTouchAt = Math.max(provenTouchAt, unproven.remove(0));
        }
        int at = unproven.size();
        while (at > 0 && unproven.get(at - 1) - sentAt > 0) {
            at--;
        }
        unproven.add(at, sentAt);
        return provenTouchAt != before;
    }

    /**
     * Past this (nanoTime) the leader may have expired {@code session}: its certain last touch plus the session
     * timeout, less the drift allowance (1% plus 2 ms, the client's). {@link Long#MIN_VALUE} for another session.
     */
    synchronized long deadline(long session) {
        if (session != sessionId) {
            return Long.MIN_VALUE;
        }
        return provenTouchAt + sessionNanos - driftAllowance(sessionNanos);
    }

    synchronized long sessionId() {
        return sessionId;
    }

    /** The clock drift allowed between this client and the leader, as the shared client counts it for leases. */
    static long driftAllowance(long nanos) {
        return nanos / 100 + 2_000_000L;
    }
}
