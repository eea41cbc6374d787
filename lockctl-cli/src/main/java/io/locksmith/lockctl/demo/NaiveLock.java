package io.locksmith.lockctl.demo;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * The lock from the post-mortem, as it is often written on Redis: {@code SET key instance NX PX ttl} to
 * take it (spinning until it works), a plain {@code DEL key} to release it: no owner check, no renewal, no
 * fencing token, no word to the holder when the TTL runs out. Kept in a map in this JVM so the contrast
 * with Locksmith runs on equal terms.
 *
 * <p>Each entry also carries a holding number that the naive code never looks at: only the demo's report
 * uses it, to tell when a {@code DEL} removed somebody else's lock.
 */
final class NaiveLock {

    record Entry(String value, long holding, long expiresAt) {
    }

    private final ConcurrentMap<String, Entry> keys = new ConcurrentHashMap<>();
    private final long ttlNanos;

    NaiveLock(Duration ttl) {
        this.ttlNanos = ttl.toNanos();
    }

    /** {@code SET key value NX PX ttl}, retried every millisecond until it succeeds (the classic spin). */
    void lock(String key, String value, long holding) throws InterruptedException {
        while (!setIfAbsent(key, value, holding)) {
            TimeUnit.MILLISECONDS.sleep(1);
        }
    }

    private boolean setIfAbsent(String key, String value, long holding) {
        long now = System.nanoTime();
        Entry mine = new Entry(value, holding, now + ttlNanos);
        Entry result = keys.compute(key, (k, current) ->
                current == null || now >= current.expiresAt ? mine : current);
        return result == mine;
    }

    /** {@code DEL key}: deletes whatever lock is there. Returns what it deleted, or null. */
    Entry unlock(String key) {
        Entry removed = keys.remove(key);
        return removed == null || System.nanoTime() >= removed.expiresAt ? null : removed;
    }
}
