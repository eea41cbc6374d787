package io.locksmith.zookeeper;

import io.locksmith.spi.Grant;
import io.locksmith.spi.LossListener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongPredicate;

/**
 * The lock nodes this provider holds, by path: the session each was created in, and a lease timer.
 *
 * <p>A ZooKeeper node lives as long as its session, but a Locksmith lease has a TTL: a fixed lease, or a
 * renewing lease past its maximum hold, must free the lock even though the process (and its session) lives
 * on. The timer deletes the node when the TTL passes without a renewal. It fires after the client's own
 * deadline for the lease (the client counts from before the request, this timer from after the answer),
 * so the store never frees a lock its holder still believes it has.
 *
 * <p>Why this timer stays in the provider although the shared client owns lease timers: it is the TTL the
 * store lacks, not a second lease clock. The client decides when a lease is lost and, for a session-bound
 * store, releases the lock at the deadline of an expired or over-held lease; but when renewals failed because
 * the store was unreachable it cannot release, and if the session then survives (the connection came back
 * within the session timeout) nothing else would ever delete the node: an ephemeral node has no TTL of its
 * own. This timer is that TTL. What the holder is told, and when, stays the client's alone.
 *
 * <p>A loss reported here goes to the client once: the client keeps reports that arrive before it has
 * registered the grant (its in-flight early-loss handling), so no repeat is needed.
 *
 * <p>Whoever removes an entry owns what follows (a loss report, a deletion); removal is atomic, so a node is
 * reported or deleted once.
 */
final class HeldNodes {

    /** One held node. The timer is replaced on each renewal. */
    static final class HeldNode {
        final Grant grant;
        final long sessionId;
        private ScheduledFuture<?> leaseTimer;

        HeldNode(Grant grant, long sessionId) {
            this.grant = grant;
            this.sessionId = sessionId;
        }

        String path() {
            return (String) grant.handle();
        }

        synchronized void replaceTimer(ScheduledFuture<?> timer) {
            if (leaseTimer != null) {
                leaseTimer.cancel(false);
            }
            leaseTimer = timer;
        }

        synchronized void cancelTimer() {
            replaceTimer(null);
        }
    }

    private final Map<String, HeldNode> byPath = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timers;
    private final LossListener lossListener;
    /** Deletes a node in the background, retrying across connection loss. */
    private final Consumer<String> deleteInBackground;

    HeldNodes(ScheduledExecutorService timers, LossListener lossListener, Consumer<String> deleteInBackground) {
        this.timers = timers;
        this.lossListener = lossListener;
        this.deleteInBackground = deleteInBackground;
    }

    void add(Grant grant, long sessionId, Duration ttl) {
        HeldNode node = new HeldNode(grant, sessionId);
        byPath.put(node.path(), node);
        startLeaseTimer(node, ttl);
    }

    HeldNode get(String path) {
        return path == null ? null : byPath.get(path);
    }

    /** Forgets a node without reporting anything; returns it if it was held. */
    HeldNode remove(String path) {
        HeldNode node = path == null ? null : byPath.remove(path);
        if (node != null) {
            node.cancelTimer();
        }
        return node;
    }

    /** The lease of a held node was confirmed: restart its timer. */
    void extend(HeldNode node, Duration ttl) {
        if (byPath.get(node.path()) == node) {
            startLeaseTimer(node, ttl);
        }
    }

    /** The node is gone or no longer certainly ours: tell the client, and make sure the node goes. */
    void lose(String path, String reason, Throwable cause) {
        HeldNode node = remove(path);
        if (node != null) {
            try {
                lossListener.lost(node.grant, reason, cause); // first: the holder hears before anyone can take it
            } finally {
                deleteInBackground.accept(path);
            }
        }
    }

    /** Loses every held node whose session matches. */
    void loseAll(LongPredicate sessionMatches, String reason, Throwable cause) {
        for (HeldNode node : new ArrayList<>(byPath.values())) {
            if (sessionMatches.test(node.sessionId)) {
                lose(node.path(), reason, cause);
            }
        }
    }

    /** The grants of an owner, for clean-up after an ambiguous acquire. */
    List<String> pathsOf(String ownerId) {
        List<String> paths = new ArrayList<>();
        for (HeldNode node : byPath.values()) {
            if (node.grant.owner().id().equals(ownerId)) {
                paths.add(node.path());
            }
        }
        return paths;
    }

    int size() {
        return byPath.size();
    }

    private void startLeaseTimer(HeldNode node, Duration ttl) {
        node.replaceTimer(timers.schedule(() -> {
            // The client has already counted the lease out; only free the lock for others.
            if (byPath.remove(node.path(), node)) {
                deleteInBackground.accept(node.path());
            }
        }, ttl.toNanos(), TimeUnit.NANOSECONDS));
    }
}
