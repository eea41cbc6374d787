package io.locksmith.zookeeper;

import io.locksmith.spi.Grant;
import io.locksmith.spi.LossListener;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongPredicate;

/**
 * The lock nodes this provider holds, by path, with the session each was created in: what a renewal checks (the
 * node is still there, in the session that created it, which is still ours), what a session change reports lost,
 * and what a release or a clean-up deletes.
 *
 * <p>No lease timer: an ephemeral node has no TTL of its own, and the shared client enforces the lease's, once for
 * every store without one ({@link io.locksmith.spi.LockProvider#appliesTtl()}): it tells the holder, then releases
 * the node at the TTL asked for and sends that release again until the store answers or this provider reports the
 * node lost. A loss reported here goes to the client once; reports that arrive before the client has registered
 * the grant are kept by the client (its early-loss handling), so none is repeated here.
 *
 * <p>Whoever removes an entry owns what follows (a loss report, a deletion); removal is atomic, so a node is
 * reported or deleted once.
 */
final class HeldNodes {

    /** One held node. */
    record HeldNode(Grant grant, long sessionId) {
        String path() {
            return (String) grant.handle();
        }
    }

    private final Map<String, HeldNode> byPath = new ConcurrentHashMap<>();
    private final LossListener lossListener;
    /** Deletes a node in the background, retrying across connection loss. */
    private final Consumer<String> deleteInBackground;

    HeldNodes(LossListener lossListener, Consumer<String> deleteInBackground) {
        this.lossListener = lossListener;
        this.deleteInBackground = deleteInBackground;
    }

    void add(Grant grant, long sessionId) {
        HeldNode node = new HeldNode(grant, sessionId);
        byPath.put(node.path(), node);
    }

    HeldNode get(String path) {
        return path == null ? null : byPath.get(path);
    }

    /** Forgets a node without reporting anything; returns it if it was held. */
    HeldNode remove(String path) {
        return path == null ? null : byPath.remove(path);
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
}
