package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.TcpProxy;

import java.util.List;
import java.util.Set;

/**
 * One store deployment started for a fault test or a safety run: its servers, the URIs its clients open, and
 * the faults it can suffer. Every method that injects a fault the deployment does not support throws
 * {@link UnsupportedOperationException}; {@link #faults()} says which it supports. Closing it stops every
 * server it started.
 */
public interface Deployment extends AutoCloseable {

    /** A short name for reports, e.g. {@code redis-sentinel}. */
    String name();

    /** What the deployment is, in a few words, for reports. */
    String description();

    /** The URI a client opens, in this JVM or in a victim JVM. */
    String uri();

    /** The faults this deployment can suffer. */
    Set<Fault> faults();

    /** Timing for this store's fault rules. */
    default TckTiming timing() {
        return TckTiming.defaults();
    }

    /** {@code host:port} of the one node a proxied client talks to. */
    default String proxiedAddress() {
        throw new UnsupportedOperationException(name() + " has no single node to proxy");
    }

    /** The URI of a client whose only way to the store is {@code proxy}. */
    default String uriThrough(TcpProxy proxy) {
        throw new UnsupportedOperationException(name() + " has no single node to proxy");
    }

    /** {@code host:port} of every member a proxied client talks to; default {@link #proxiedAddress()} alone. */
    default List<String> proxiedAddresses() {
        return List.of(proxiedAddress());
    }

    /** The URI of a client whose only way to the store is {@code proxies}, in the order of {@link #proxiedAddresses()}. */
    default String uriThrough(List<TcpProxy> proxies) {
        if (proxies.size() != 1) {
            throw new UnsupportedOperationException(name() + " has no several members to proxy");
        }
        return uriThrough(proxies.get(0));
    }

    /** Kills (-9) one node whose loss the deployment is built to survive (a leader, a minority member). */
    default void killNode() {
        throw new UnsupportedOperationException(name() + " cannot survive the loss of a node");
    }

    /** Brings back the node {@link #killNode()} killed. */
    default void restartNode() {
    }

    /**
     * Restarts the store's one server as a crash and recovery would (kill -9, started again on the same address with
     * what its configuration keeps) and returns once it serves clients again (fault rule R9.19).
     */
    default void restartStore() {
        throw new UnsupportedOperationException(name() + " has no single server to restart");
    }

    /** From now on, writes to the primary do not reach the replica {@link #failOver()} will promote. */
    default void stopReplication() {
    }

    /** Undoes {@link #stopReplication()}: the replica catches up again. Default: nothing. */
    default void resumeReplication() {
    }

    /** Kills the primary and returns once a replica serves clients. */
    default void failOver() {
        throw new UnsupportedOperationException(name() + " has no replica to fail over to");
    }

    /**
     * The URI of a client that talks only to the member {@link #isolateMinorityMember()} cuts from its peers.
     * The same member every time, chosen on the first call.
     */
    default String minorityMemberUri() {
        throw new UnsupportedOperationException(name() + " has no minority member to isolate");
    }

    /** The URI of a client that talks only to the members on the majority side of that partition. */
    default String majorityUri() {
        throw new UnsupportedOperationException(name() + " has no minority member to isolate");
    }

    /** Cuts the member of {@link #minorityMemberUri()} from its peers; its clients still reach it. */
    default void isolateMinorityMember() {
        throw new UnsupportedOperationException(name() + " has no minority member to isolate");
    }

    /** Ends that partition and returns once both sides serve clients again. */
    default void healMinorityMember() {
    }

    /**
     * Freezes (SIGSTOP) the member of {@link #minorityMemberUri()}, the leader or primary: it keeps its sockets and
     * answers nothing while the others elect a new leader or promote a replica (rule R9.10).
     */
    default void freezeMember() {
        throw new UnsupportedOperationException(name() + " has no leader or primary to freeze");
    }

    /** Resumes the frozen member and returns once it serves again (as a follower or replica). */
    default void thawMember() {
    }

    /** Stops every server this deployment started. */
    @Override
    void close();
}
