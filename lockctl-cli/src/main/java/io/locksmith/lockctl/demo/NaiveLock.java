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
                current == null || (current.expiresAt != Long.MAX_VALUE && now - current.expiresAt >= 0) ? mine : current);
        return result == mine;
    }

    /**
     * {@code SETNX key value}: the older way, the lock without a TTL, to be followed by {@link #expire}. A process
     * that dies between the two leaves a key that never expires.
     */
    boolean setNx(String key, String value, long holding) {
        Entry mine = new Entry(value, holding, Long.MAX_VALUE);
        long now = System.nanoTime();
        return keys.compute(key, (k, current) -> current == null || now - current.expiresAt >= 0
                && current.expiresAt != Long.MAX_VALUE ? mine : current) == mine;
    }

    /** {@code EXPIRE key ttl}. */
    void expire(String key, Duration ttl) {
        keys.computeIfPresent(key, (k, current) -> new Entry(current.value(), current.holding(),
                System.nanoTime() + ttl.toNanos()));
    }

    /** Whether the key is there without a TTL ({@code TTL key} answers -1): nothing will ever remove it. */
    boolean hasNoTtl(String key) {
        Entry entry = keys.get(key);
        return entry != null && entry.expiresAt() == Long.MAX_VALUE;
    }

    /** {@code SET key value NX PX ttl}, once. */
    boolean tryLock(String key, String value, long holding) {
        return setIfAbsent(key, value, holding);
    }

    /** {@code DEL key}: deletes whatever lock is there. Returns what it deleted, or null. */
    Entry unlock(String key) {
        Entry removed = keys.remove(key);
        return removed == null || System.nanoTime() >= removed.expiresAt ? null : removed;
    }
}
