package io.locksmith.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Watch-based waiting: each waiting owner watches the deletion of its predecessor only (the key created
 * just before its own), so a release wakes the next waiter and nobody else. The client's subscription for
 * a lock name ({@link io.locksmith.spi.LockProvider#subscribe}) receives every such wake-up of that name.
 *
 * <p>A watch starts at etcd's current revision, never at an older one: etcd serves a watch that starts behind
 * its current revision from its "unsynced" group, which it catches up only every 100 ms, and under contention
 * the revision moves between the read that found the predecessor and the watch (other waiters queue, holders
 * leave), so a watch from the read's revision made most handoffs wait for that sync (handoff p99 85 ms,
 * docs/PERFORMANCE.md). A deletion between the read and the watch is caught instead by a re-check: etcd
 * reports the revision at which it created the watch, and if anything happened after the read, the
 * predecessor is read again and a waiter whose predecessor has gone is woken. A failed watch also wakes:
 * the waiter then looks again, and the client's backoff remains as a safety net.
 */
final class PredecessorWatches implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PredecessorWatches.class);

    private final Watch watchClient;
    private final KV kv;
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

    PredecessorWatches(Watch watchClient, KV kv) {
        this.watchClient = watchClient;
        this.kv = kv;
    }

    AutoCloseable subscribe(String name, Runnable onChange) {
        subscribers.put(name, onChange);
        return () -> subscribers.remove(name, onChange);
    }

    boolean isSubscribed(String name) {
        return subscribers.containsKey(name);
    }

    /**
     * Makes {@code ownerId} wait for the deletion of {@code predecessor}, which a read at {@code readRevision}
     * found; keeps the current watch if it already watches that key.
     */
    void watch(String name, String ownerId, ByteSequence predecessor, long predecessorRevision, long readRevision) {
        Waiting current = byOwner.get(ownerId);
        if (current != null && current.watches(predecessor, predecessorRevision)) {
            return;
        }
        Waiting waiting = new Waiting(name, predecessor, predecessorRevision);
        Waiting previous = byOwner.put(ownerId, waiting);
        close(previous);
        // Revision 0: from etcd's current revision, a watch in etcd's synced group.
        WatchOption option = WatchOption.builder().withNoPut(true).withCreateNotify(true).build();
        waiting.watcher = watchClient.watch(predecessor, option, Watch.listener(response -> {
            if (response.isCreatedNotify()) {
                recheckIfMoved(waiting, response, readRevision);
                return;
            }
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

    /**
     * The watch sees what happens after the revision at which etcd created it. If that is past the read that found
     * the predecessor, the predecessor may have gone in between, unseen by the watch: read it again.
     */
    private void recheckIfMoved(Waiting waiting, WatchResponse created, long readRevision) {
        if (created.getHeader().getRevision() <= readRevision || waiting.fired) {
            return;
        }
        kv.get(waiting.predecessor, GetOption.builder().withKeysOnly(true).build()).whenComplete((answer, error) -> {
            if (error != null) {
                LOG.debug("re-reading the predecessor of a waiter of lock '{}' failed; it looks again", waiting.name,
                        error);
                fire(waiting);
            } else if (!stillThere(answer, waiting.predecessorRevision)) {
                fire(waiting);
            }
        });
    }

    private static boolean stillThere(GetResponse answer, long createRevision) {
        for (KeyValue key : answer.getKvs()) {
            if (key.getCreateRevision() == createRevision) {
                return true;
            }
        }
        return false;
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
