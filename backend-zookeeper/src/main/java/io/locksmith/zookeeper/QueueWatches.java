package io.locksmith.zookeeper;

import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The watches of the queue: a waiter watches only its predecessor (a release wakes one queue position, no herd),
 * and a holder watches its own node, whose deletion behind its back (session expiry, an operator) is reported
 * lost at once. The client's subscription for a lock name ({@link io.locksmith.spi.LockProvider#subscribe})
 * receives every wake-up of that name's queue.
 */
final class QueueWatches {

    private static final Logger LOG = LoggerFactory.getLogger(QueueWatches.class);

    private final LockPaths paths;
    private final HeldNodes held;
    /** Lock path to the client's callbacks for changes in its queue. */
    private final Map<String, List<Runnable>> subscribers = new ConcurrentHashMap<>();
    /** One watcher for every predecessor, so ZooKeeper keeps one registration per watched node. */
    private final Watcher predecessorWatcher = this::predecessorChanged;
    private final Watcher heldNodeWatcher = this::heldNodeChanged;

    QueueWatches(LockPaths paths, HeldNodes held) {
        this.paths = paths;
        this.held = held;
    }

    /** The watcher a waiter sets on its predecessor. */
    Watcher predecessorWatcher() {
        return predecessorWatcher;
    }

    /** The watcher a holder sets on its own node. */
    Watcher heldNodeWatcher() {
        return heldNodeWatcher;
    }

    AutoCloseable subscribe(String name, Runnable onChange) {
        String lockPath = paths.lockPath(name);
        subscribers.computeIfAbsent(lockPath, k -> new CopyOnWriteArrayList<>()).add(onChange);
        return () -> subscribers.computeIfPresent(lockPath, (k, list) -> {
            list.remove(onChange);
            return list.isEmpty() ? null : list;
        });
    }

    private void predecessorChanged(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None || event.getPath() == null) {
            notifyAllSubscribers();
            return;
        }
        notifySubscribers(LockPaths.parent(event.getPath()));
    }

    private void heldNodeChanged(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            held.lose(event.getPath(), "the lock node " + event.getPath() + " was deleted behind the holder's back"
                    + " (its session expired, or an operator removed it)", null);
            notifySubscribers(LockPaths.parent(event.getPath()));
        }
    }

    private void notifySubscribers(String lockPath) {
        List<Runnable> callbacks = subscribers.get(lockPath);
        if (callbacks != null) {
            callbacks.forEach(QueueWatches::runQuietly);
        }
    }

    /** Wakes every waiter: after a session change, any queue may have moved. */
    void notifyAllSubscribers() {
        subscribers.values().forEach(list -> list.forEach(QueueWatches::runQuietly));
    }

    private static void runQuietly(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.warn("lock release callback failed", e);
        }
    }
}
