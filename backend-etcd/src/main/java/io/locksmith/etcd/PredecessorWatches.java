package io.locksmith.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Watch-based waiting: each waiting owner watches the deletion of its predecessor only (the key created
 * just before its own), so a release wakes the next waiter and nobody else. The client's subscription for
 * a lock name ({@link io.locksmith.spi.LockProvider#subscribe}) receives every such wake-up of that name.
 *
 * <p>A watch starts at the revision after the read that found the predecessor, so a deletion between the
 * read and the watch is still seen. A failed watch also wakes: the waiter then looks again, and the
 * client's backoff remains as a safety net.
 */
final class PredecessorWatches implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PredecessorWatches.class);

    private final Watch watchClient;
    private final Map<String, Runnable> subscribers = new ConcurrentHashMap<>();
    private final Map<String, Waiting> byOwner = new ConcurrentHashMap<>();

    /** The watch of one waiting owner on its predecessor. */
    private static final class Waiting {
        final String name;
        final ByteSequence predecessor;
        final long predecessorRevision;
        volatile Watch.Watcher watcher;
        volatile boolean fired;

        Waiting(String name, ByteSequence predecessor, long predecessorRevision) {
            this.name = name;
            this.predecessor = predecessor;
            this.predecessorRevision = predecessorRevision;
        }

        boolean watches(ByteSequence key, long createRevision) {
            return !fired && predecessor.equals(key) && predecessorRevision == createRevision;
        }
    }

    PredecessorWatches(Watch watchClient) {
        this.watchClient = watchClient;
    }

    AutoCloseable subscribe(String name, Runnable onChange) {
        subscribers.put(name, onChange);
        return () -> subscribers.remove(name, onChange);
    }

    boolean isSubscribed(String name) {
        return subscribers.containsKey(name);
    }

    /**
     * Makes {@code ownerId} wait for the deletion of {@code predecessor}, seen from {@code fromRevision};
     * keeps the current watch if it already watches that key.
     */
    void watch(String name, String ownerId, ByteSequence predecessor, long predecessorRevision, long fromRevision) {
        Waiting current = byOwner.get(ownerId);
        if (current != null && current.watches(predecessor, predecessorRevision)) {
            return;
        }
        Waiting waiting = new Waiting(name, predecessor, predecessorRevision);
        Waiting previous = byOwner.put(ownerId, waiting);
        close(previous);
        WatchOption option = WatchOption.builder().withRevision(fromRevision).withNoPut(true).build();
        waiting.watcher = watchClient.watch(predecessor, option, Watch.listener(response -> {
            for (WatchEvent event : response.getEvents()) {
                if (event.getEventType() == WatchEvent.EventType.DELETE) {
                    fire(waiting);
                    return;
                }
            }
        }, error -> {
            LOG.debug("watch on the predecessor of a waiter of lock '{}' failed; it looks again", name, error);
            fire(waiting);
        }));
        if (byOwner.get(ownerId) != waiting) {
            // Forgotten while the watch was being created.
            close(waiting);
        }
    }

    /** Wakes the subscriber of {@code name} now: the caller found it worth another look. */
    void wake(String name) {
        Runnable subscriber = subscribers.get(name);
        if (subscriber != null) {
            subscriber.run();
        }
    }

    private void fire(Waiting waiting) {
        if (waiting.fired) {
            return;
        }
        waiting.fired = true;
        wake(waiting.name);
    }

    /** Stops the watch of {@code ownerId}: it holds the lock now, or stopped waiting. */
    void forget(String ownerId) {
        close(byOwner.remove(ownerId));
    }

    private static void close(Waiting waiting) {
        if (waiting == null) {
            return;
        }
        waiting.fired = true;
        Watch.Watcher watcher = waiting.watcher;
        if (watcher != null) {
            try {
                watcher.close();
            } catch (RuntimeException e) {
                LOG.debug("closing a predecessor watch failed", e);
            }
        }
    }

    @Override
    public void close() {
        byOwner.values().forEach(PredecessorWatches::close);
        byOwner.clear();
        subscribers.clear();
    }
}
