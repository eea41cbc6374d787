package io.locksmith.mem;

import io.locksmith.HolderIdentity;
import io.locksmith.LockInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One in-JVM lock store: what {@code mem://NAME} clients in the same JVM share. Real TTLs on the monotonic
 * clock, fencing tokens from one store-wide counter (so strictly increasing per name, with nothing to keep
 * per name once a lock is free), and release notification, including when a lock expires.
 *
 * <p>Also the place for test hooks: {@link #expire(String)} and {@link #delete(String)} do to a lock what a
 * failing store would, behind its holder's back.
 */
public final class MemStore {

    private static final Map<String, MemStore> STORES = new ConcurrentHashMap<>();
    private static final ScheduledThreadPoolExecutor EXPIRY = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "locksmith-mem-expiry");
        thread.setDaemon(true);
        return thread;
    });

    static {
        EXPIRY.setRemoveOnCancelPolicy(true);
    }

    private record Entry(String ownerId, HolderIdentity holder, long token, long expiresAt) {
    }

    private record Record(String value, long expiresAt) {
    }

    private final String name;
    private final Map<String, Entry> locks = new HashMap<>();
    private final Map<String, Record> records = new HashMap<>();
    private final Map<String, List<Runnable>> listeners = new ConcurrentHashMap<>();
    private long lastToken;

    private MemStore(String name) {
        this.name = name;
    }

    /** The store of that name, created on first use; {@code ""} is the default store of {@code mem://}. */
    public static MemStore named(String name) {
        return STORES.computeIfAbsent(name, MemStore::new);
    }

    /** The name of this store. */
    public String name() {
        return name;
    }

    synchronized Entry current(String lock, long now) {
        Entry entry = locks.get(lock);
        if (entry != null && now >= entry.expiresAt) {
            locks.remove(lock);
            return null;
        }
        return entry;
    }

    /** Atomic: checks, sets owner, TTL and a new token in one step. */
    long tryAcquire(String lock, String ownerId, HolderIdentity holder, Duration ttl) {
        long now = System.nanoTime();
        long token;
        synchronized (this) {
            if (current(lock, now) != null) {
                return -1;
            }
            token = ++lastToken;
            locks.put(lock, new Entry(ownerId, holder, token, now + ttl.toNanos()));
        }
        scheduleExpiryNotice(lock, ttl.toNanos());
        return token;
    }

    boolean renew(String lock, String ownerId, Duration ttl) {
        long now = System.nanoTime();
        synchronized (this) {
            Entry entry = current(lock, now);
            if (entry == null || !entry.ownerId.equals(ownerId)) {
                return false;
            }
            locks.put(lock, new Entry(ownerId, entry.holder, entry.token, now + ttl.toNanos()));
        }
        scheduleExpiryNotice(lock, ttl.toNanos());
        return true;
    }

    boolean release(String lock, String ownerId) {
        synchronized (this) {
            Entry entry = current(lock, System.nanoTime());
            if (entry == null || !entry.ownerId.equals(ownerId)) {
                return false;
            }
            locks.remove(lock);
        }
        notifyListeners(lock);
        return true;
    }

    synchronized LockInfo inspect(String lock) {
        long now = System.nanoTime();
        Entry entry = current(lock, now);
        if (entry == null) {
            return null;
        }
        return new LockInfo(lock, entry.holder, entry.token, Duration.ofNanos(entry.expiresAt - now), List.of());
    }

    synchronized List<LockInfo> list(String prefix) {
        List<LockInfo> held = new ArrayList<>();
        for (String lock : new TreeSet<>(locks.keySet())) {
            if (lock.startsWith(prefix)) {
                LockInfo info = inspect(lock);
                if (info != null) {
                    held.add(info);
                }
            }
        }
        return held;
    }

    /** Test hook: the lock expires now, as if its TTL had run out (Redis: {@code PEXPIRE key 1}). */
    public boolean expire(String lock) {
        return delete(lock);
    }

    /** Test hook: the lock is deleted behind its holder's back (an operator, a store failover). */
    public boolean delete(String lock) {
        boolean removed;
        synchronized (this) {
            removed = locks.remove(lock) != null;
        }
        if (removed) {
            notifyListeners(lock);
        }
        return removed;
    }

    /** How many locks are held now (expired ones do not count). */
    public synchronized int size() {
        long now = System.nanoTime();
        locks.values().removeIf(entry -> now >= entry.expiresAt);
        return locks.size();
    }

    synchronized void putRecord(String key, String value, Duration ttl) {
        records.put(key, new Record(value, ttl == null ? Long.MAX_VALUE : System.nanoTime() + ttl.toNanos()));
    }

    synchronized Map<String, String> listRecords(String prefix) {
        long now = System.nanoTime();
        records.values().removeIf(record -> now >= record.expiresAt);
        Map<String, String> result = new java.util.TreeMap<>();
        records.forEach((key, record) -> {
            if (key.startsWith(prefix)) {
                result.put(key, record.value);
            }
        });
        return result;
    }

    synchronized void removeRecord(String key) {
        records.remove(key);
    }

    AutoCloseable subscribe(String lock, Runnable onChange) {
        listeners.computeIfAbsent(lock, k -> new CopyOnWriteArrayList<>()).add(onChange);
        // A lock granted before anybody subscribed has no expiry timer yet: its expiry must reach this subscriber too.
        long now = System.nanoTime();
        long remaining;
        synchronized (this) {
            Entry entry = current(lock, now);
            remaining = entry == null ? -1 : entry.expiresAt - now;
        }
        if (remaining >= 0) {
            scheduleExpiryNotice(lock, remaining);
        }
        return () -> listeners.computeIfPresent(lock, (k, list) -> {
            list.remove(onChange);
            return list.isEmpty() ? null : list;
        });
    }

    private void scheduleExpiryNotice(String lock, long ttlNanos) {
        // Only worth a timer when somebody waits; a later subscriber schedules its own (see subscribe).
        if (listeners.containsKey(lock)) {
            EXPIRY.schedule(() -> {
                synchronized (this) {
                    if (current(lock, System.nanoTime()) != null) {
                        return;
                    }
                }
                notifyListeners(lock);
            }, ttlNanos + 1, TimeUnit.NANOSECONDS);
        }
    }

    private void notifyListeners(String lock) {
        List<Runnable> toCall = listeners.get(lock);
        if (toCall == null) {
            return;
        }
        for (Runnable listener : new ArrayList<>(toCall)) {
            listener.run();
        }
    }

    @Override
    public String toString() {
        return "mem://" + name;
    }
}
