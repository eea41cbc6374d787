package io.locksmith.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Watch-based waiting: one prefix watch per lock name that this client waits for, shared by all of the client's
 * waiters of that name, and for each waiter the set of keys queued ahead of it. A deletion seen on the watch
 * removes a key from the sets; a waiter whose set becomes empty holds the lock (its key is then the oldest of the
 * name), and its next attempt grants without asking etcd again: a handoff costs the holder's delete and the watch
 * event, no read or transaction of the waiter's (docs/PERFORMANCE.md).
 *
 * <p>The watch starts at etcd's current revision, never at an older one: etcd serves a watch that starts behind
 * its current revision from its "unsynced" group, which it catches up only every 100 ms, and under contention the
 * revision moves all the time, so a watch from an earlier read's revision made handoffs wait for that sync. A
 * waiter's keys ahead are read after etcd has created the watch, so every deletion after that read reaches the
 * watch; deletions that arrive on the watch while the read is under way are taken out of its answer.
 *
 * <p>A deletion is matched by revision, not by key name alone: a client's slot key is written again by the slot's
 * next owner ({@link KeySlots}), and the watch may report the deletion of an earlier life of a key after the waiter
 * read the key's current life as ahead of it. A deletion at revision {@code D} ends the life of a key created before
 * {@code D} only.
 *
 * <p>Keys ahead can only go: a key created later has a larger create revision and queues behind. The sets stay
 * exact while the watch stream runs; etcd resumes a broken stream from the next revision, and a watch that ends
 * with an error drops every set (attempts then ask etcd in a transaction again) and wakes the waiters. The client's
 * backoff poll remains as a safety net.
 */
final class QueueWatches implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(QueueWatches.class);

    private final Watch watchClient;
    private final Map<String, NameWatch> byName = new ConcurrentHashMap<>();
    /** The name each waiting owner has a place in. */
    private final Map<String, NameWatch> byOwner = new ConcurrentHashMap<>();

    /** One waiter's view of the queue: the keys ahead of its own. Guarded by its {@link NameWatch}. */
    static final class Place {
        final ByteSequence ownKey;
        final long ownRevision;
        final long leaseId;
        /** Keys ahead with their create revisions, or null while the read of them is under way. */
        private Map<ByteSequence, Long> ahead;
        /** Keys deleted while the read of the keys ahead was under way, with the revision of their last deletion. */
        private final Map<ByteSequence, Long> deletedDuringRead = new HashMap<>();
        private boolean valid = true;

        Place(ByteSequence ownKey, long ownRevision, long leaseId) {
            this.ownKey = ownKey;
            this.ownRevision = ownRevision;
            this.leaseId = leaseId;
        }
    }

    /** The watch of one lock name and the places of this client's waiters on it. */
    private final class NameWatch {
        final String name;
        final ByteSequence directory;
        final Runnable onChange;
        final CompletableFuture<Void> created = new CompletableFuture<>();
        final Map<String, Place> places = new ConcurrentHashMap<>();
        volatile Watch.Watcher watcher;
        volatile boolean ended;

        NameWatch(String name, ByteSequence directory, Runnable onChange) {
            this.name = name;
            this.directory = directory;
            this.onChange = onChange;
        }

        void start() {
            // Revision 0: from etcd's current revision, a watch in etcd's synced group.
            WatchOption option = WatchOption.builder().isPrefix(true).withNoPut(true).withCreateNotify(true).build();
            watcher = watchClient.watch(directory, option, Watch.listener(this::onResponse, this::onError));
        }

        private void onResponse(io.etcd.jetcd.watch.WatchResponse response) {
            if (response.isCreatedNotify()) {
                created.complete(null);
                return;
            }
            boolean someoneFirst = false;
            for (WatchEvent event : response.getEvents()) {
                if (event.getEventType() == WatchEvent.EventType.DELETE) {
                    someoneFirst |= deleted(event.getKeyValue().getKey(), event.getKeyValue().getModRevision());
                }
            }
            if (someoneFirst) {
                runQuietly(onChange);
            }
        }

        /** Applies the deletion of {@code key} at {@code revision}; true if a waiter has nobody ahead any more. */
        synchronized boolean deleted(ByteSequence key, long revision) {
            boolean someoneFirst = false;
            for (Place place : places.values()) {
                if (!place.valid) {
                    continue;
                }
                if (place.ownKey.equals(key)) {
                    if (place.ownRevision < revision) {
                        place.valid = false; // deleted behind the waiter's back: its next attempt asks etcd
                        someoneFirst = true;
                    } // else an earlier life of the waiter's slot key
                } else if (place.ahead == null) {
                    place.deletedDuringRead.merge(key, revision, Math::max);
                } else {
                    Long created = place.ahead.get(key);
                    if (created != null && created < revision) {
                        place.ahead.remove(key);
                        someoneFirst |= place.ahead.isEmpty();
                    }
                }
            }
            return someoneFirst;
        }

        private void onError(Throwable error) {
            LOG.debug("the queue watch of lock '{}' ended; its waiters ask etcd again", name, error);
            end();
            created.completeExceptionally(error);
            runQuietly(onChange);
        }

        /** Stops the watch and drops every place: attempts fall back to asking etcd. */
        void end() {
            ended = true;
            synchronized (this) {
                places.values().forEach(place -> place.valid = false);
            }
            byName.remove(name, this);
            Watch.Watcher current = watcher;
            if (current != null) {
                try {
                    current.close();
                } catch (RuntimeException e) {
                    LOG.debug("closing the queue watch of lock '{}' failed", name, e);
                }
            }
        }
    }

    QueueWatches(Watch watchClient) {
        this.watchClient = watchClient;
    }

    /** Starts the watch of {@code name}'s queue (under {@code directory}); {@code onChange} hears of a waiter now first. */
    AutoCloseable subscribe(String name, ByteSequence directory, Runnable onChange) {
        NameWatch watch = new NameWatch(name, directory, onChange);
        NameWatch previous = byName.put(name, watch);
        if (previous != null) {
            previous.end();
        }
        watch.start();
        return () -> {
            watch.end();
            watch.places.keySet().forEach(owner -> byOwner.remove(owner, watch));
        };
    }

    boolean isSubscribed(String name) {
        NameWatch watch = byName.get(name);
        return watch != null && !watch.ended;
    }

    /**
     * Whether {@code ownerId}'s key, of create revision {@code ownRevision} on lease {@code leaseId}, is now the
     * oldest of its name as the watch has seen it: true only for a place whose keys ahead were read and have all
     * been deleted since, while the watch ran without a break.
     */
    boolean knownFirst(String name, String ownerId, long ownRevision, long leaseId) {
        NameWatch watch = byName.get(name);
        if (watch == null || watch.ended) {
            return false;
        }
        synchronized (watch) {
            Place place = watch.places.get(ownerId);
            return place != null && place.valid && place.ahead != null && place.ahead.isEmpty()
                    && place.ownRevision == ownRevision && place.leaseId == leaseId;
        }
    }

    /** The place of {@code ownerId} if it is still exact: its key, revision and lease, else null. */
    Place place(String name, String ownerId) {
        NameWatch watch = byName.get(name);
        if (watch == null || watch.ended) {
            return null;
        }
        synchronized (watch) {
            Place place = watch.places.get(ownerId);
            return place != null && place.valid && place.ahead != null ? place : null;
        }
    }

    /**
     * Gives {@code ownerId} a place in {@code name}'s queue: waits (within the call's deadline) until etcd has
     * created the watch, then reads the keys ahead with {@code readAhead}, and keeps the keys of that answer that
     * the watch has not seen deleted meanwhile. Keeps an exact place for the same key as it is.
     *
     * @param readAhead reads the keys with a create revision below {@code ownRevision}; called after the watch exists
     * @param waitNanos how long to wait for etcd to create the watch; without it, no place (the caller polls)
     * @return whether the owner's key is already the oldest (nobody ahead any more)
     */
    boolean take(String name, String ownerId, ByteSequence ownKey, long ownRevision, long leaseId,
                 java.util.function.Supplier<Map<ByteSequence, Long>> readAhead, long waitNanos) {
        NameWatch watch = byName.get(name);
        if (watch == null || watch.ended) {
            return false;
        }
        Place place;
        synchronized (watch) {
            Place current = watch.places.get(ownerId);
            if (current != null && current.valid && current.ahead != null && current.ownRevision == ownRevision
                    && current.leaseId == leaseId) {
                return current.ahead.isEmpty();
            }
            place = new Place(ownKey, ownRevision, leaseId);
            watch.places.put(ownerId, place);
        }
        NameWatch before = byOwner.put(ownerId, watch);
        if (before != null && before != watch) {
            synchronized (before) {
                before.places.remove(ownerId);
            }
        }
        try {
            watch.created.get(waitNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            forget(ownerId);
            return false;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.debug("the queue watch of lock '{}' was not created in time; its waiter polls", name, e);
            forget(ownerId);
            return false;
        }
        Map<ByteSequence, Long> ahead;
        try {
            ahead = readAhead.get();
        } catch (RuntimeException e) {
            forget(ownerId);
            throw e;
        }
        synchronized (watch) {
            if (watch.places.get(ownerId) != place) {
                return false;
            }
            Map<ByteSequence, Long> keys = new HashMap<>(ahead);
            place.deletedDuringRead.forEach((key, deletedAt) -> keys.computeIfPresent(key,
                    (k, created) -> created < deletedAt ? null : created));
            place.deletedDuringRead.clear();
            place.ahead = keys;
            return place.valid && !watch.ended && keys.isEmpty();
        }
    }

    /** What the watch of {@code name} does when it reports the deletion of {@code key} at {@code revision} (tests). */
    void reportDeleted(String name, ByteSequence key, long revision) {
        NameWatch watch = byName.get(name);
        if (watch != null && watch.deleted(key, revision)) {
            runQuietly(watch.onChange);
        }
    }

    /** Wakes the subscriber of {@code name} now: the caller found it worth another look. */
    void wake(String name) {
        NameWatch watch = byName.get(name);
        if (watch != null) {
            runQuietly(watch.onChange);
        }
    }

    /** Drops the place of {@code ownerId}: it holds the lock now, or stopped waiting. */
    void forget(String ownerId) {
        NameWatch watch = byOwner.remove(ownerId);
        if (watch != null) {
            synchronized (watch) {
                watch.places.remove(ownerId);
            }
        }
    }

    private static void runQuietly(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.warn("lock release callback failed", e);
        }
    }

    @Override
    public void close() {
        List<NameWatch> all = new ArrayList<>(byName.values());
        all.forEach(NameWatch::end);
        byOwner.clear();
    }
}
