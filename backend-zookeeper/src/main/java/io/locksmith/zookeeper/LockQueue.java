package io.locksmith.zookeeper;

import io.locksmith.HolderIdentity;
import io.locksmith.LockInfo;
import io.locksmith.spi.Owner;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * The queue recipe on the tree: an owner's ephemeral sequential node under the lock's container node, the queue
 * read in sequence order, orphans of retried creates removed, and what a queue says about its holder and waiters.
 * Whether the first node may be reported held (session proof, lease bookkeeping) is the provider's decision.
 */
final class LockQueue {

    private static final Logger LOG = LoggerFactory.getLogger(LockQueue.class);

    private final Requests requests;
    private final LockPaths paths;
    private final NodeReaper reaper;

    LockQueue(Requests requests, LockPaths paths, NodeReaper reaper) {
        this.requests = requests;
        this.paths = paths;
        this.reaper = reaper;
    }

    /** An owner's new node and the queue read right after it. */
    record Created(String node, List<String> children) {
    }

    /**
     * Puts the owner's node at the end of the lock's queue and reads the queue, in one round trip: the read is sent
     * right behind the create, without waiting for it, and the session's requests are served in order, so the read
     * sees the new node. Within the call's deadline; a create whose connection was lost is sent again (its first try
     * may have made a node: an orphan, see {@link #withoutOrphansOf}), and a create whose answer comes after the
     * caller stopped waiting has its node deleted when the answer comes.
     *
     * @param stat receives the new node's {@link Stat} from the create's own answer (no second read)
     */
    Created createAndRead(String name, Owner owner, Stat stat) throws Exception {
        byte[] data = new LockNodeData(owner.id(), owner.holder()).toBytes();
        String lockPath = paths.lockPath(name);
        String prefix = paths.nodePrefix(name, owner.id());
        boolean containersMade = false;
        while (true) {
            // Containers: the server deletes a lock's node once its last child is gone, so short-lived names
            // leave nothing behind. No Curator "protection" needed: the owner id in the name finds the node
            // again after a create whose answer was lost.
            CompletableFuture<String> created = requests.create(prefix, data, CreateMode.EPHEMERAL_SEQUENTIAL, stat);
            CompletableFuture<List<String>> read = requests.children(lockPath);
            String node;
            try {
                node = requests.await(created, "acquire", name);
            } catch (KeeperException.NoNodeException e) {
                if (containersMade) {
                    throw e;
                }
                // First lock of this name, or its container was removed once empty: make it, then queue.
                requests.createContainers(lockPath);
                containersMade = true;
                continue;
            } catch (KeeperException e) {
                if (!requests.pauseBeforeRetry(e)) {
                    throw e;
                }
                continue;
            } catch (RuntimeException e) {
                // No answer in time: the create may still be served later, and its node must not stay queued.
                created.thenAccept(late -> {
                    LOG.debug("deleting {}'s node {}, created after its acquire gave up", owner.id(), late);
                    reaper.deleteInBackground(late);
                });
                throw e;
            }
            try {
                return new Created(node, requests.await(read, "acquire", name));
            } catch (KeeperException.NoNodeException e) {
                return new Created(node, List.of()); // cannot be while the node is in it; read again by the caller
            } catch (Exception e) {
                reaper.deleteInBackground(node);
                throw e;
            }
        }
    }

    /**
     * Removes, from the queue and from the store, the owner's nodes other than {@code node}. A create whose answer
     * was lost with the connection is sent again ({@link #createAndRead}), and the first one may have succeeded: that
     * orphan has the owner's name, sits ahead of the owner's real node, and would make the owner wait for itself.
     */
    List<String> withoutOrphansOf(Owner owner, String node, List<String> queue) {
        String prefix = LockPaths.ownerPrefix(owner.id());
        String own = LockPaths.nodeName(node);
        List<String> kept = new ArrayList<>(queue.size());
        for (String child : queue) {
            if (child.startsWith(prefix) && !child.equals(own)) {
                LOG.debug("deleting {}'s orphan node {} (a create retried after a lost answer)", owner.id(), child);
                reaper.deleteNow(LockPaths.parent(node) + "/" + child);
            } else {
                kept.add(child);
            }
        }
        return kept;
    }

    /** The children of a lock node; none if the container is gone (deleted by the server once empty). */
    List<String> children(String lockPath) throws Exception {
        try {
            return requests.retrying(() -> requests.children(lockPath), "read the queue of " + lockPath, null);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /** Who holds {@code name} (the first node of its queue) and who waits behind it, in queue order. */
    Optional<LockInfo> inspect(String name) throws Exception {
        String lockPath = paths.lockPath(name);
        List<String> queue;
        try {
            queue = LockPaths.queue(requests.retrying(() -> requests.children(lockPath), "inspect", name));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        }
        // Every node's read sent at once: one round trip, however long the queue.
        List<Stat> stats = new ArrayList<>(queue.size());
        List<CompletableFuture<byte[]>> reads = new ArrayList<>(queue.size());
        for (String child : queue) {
            Stat stat = new Stat();
            stats.add(stat);
            reads.add(requests.data(lockPath + "/" + child, stat));
        }
        HolderIdentity holder = null;
        long token = -1;
        List<HolderIdentity> waiters = new ArrayList<>();
        for (int i = 0; i < queue.size(); i++) {
            byte[] data;
            try {
                data = requests.await(reads.get(i), "inspect", name);
            } catch (KeeperException.NoNodeException e) {
                continue; // left while we read: not in the queue any more
            }
            HolderIdentity identity = LockNodeData.fromBytes(data).holder();
            if (holder == null) {
                holder = identity;
                token = stats.get(i).getCzxid();
            } else {
                waiters.add(identity);
            }
        }
        return holder == null ? Optional.empty()
                : Optional.of(new LockInfo(name, holder, token, null, waiters));
    }

    /**
     * The lock names under the base node that start with {@code prefix}, sorted: every lock name is one child of
     * the base node. A name here may be free (a container whose queue is empty until the server deletes it).
     */
    SortedSet<String> namesStartingWith(String prefix) throws Exception {
        List<String> children;
        try {
            children = requests.retrying(() -> requests.children(paths.base()), "list", null);
        } catch (KeeperException.NoNodeException e) {
            return new TreeSet<>();
        }
        SortedSet<String> names = new TreeSet<>();
        for (String child : children) {
            try {
                String name = LockPaths.decodeSegment(child);
                if (name.startsWith(prefix)) {
                    names.add(name);
                }
            } catch (IllegalArgumentException notALockOfOurs) {
                // a node someone else put under the base: not a Locksmith lock name
            }
        }
        return names;
    }
}
