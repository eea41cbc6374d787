package io.locksmith.spring;

import io.locksmith.LockEvent;
import io.locksmith.LockListener;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When this instance's client acquired each store lock it holds, from its events: the store does not record when a
 * lock was taken, so the {@code locks} endpoint can tell the age of this instance's own locks only.
 */
final class LockAges implements LockListener {

    /** Acquire times ({@link System#nanoTime()}) by lock name and fencing token. */
    private final Map<String, Long> acquiredAt = new ConcurrentHashMap<>();

    @Override
    public void onEvent(LockEvent event) {
        switch (event.type()) {
            case ACQUIRED -> acquiredAt.put(key(event.lockName(), event.fencingToken()), System.nanoTime());
            case RELEASED, LOST -> acquiredAt.remove(key(event.lockName(), event.fencingToken()));
            default -> {
                // re-entries, renewals and failures do not change when the store lock was taken
            }
        }
    }

    /** How long this instance has held the store lock {@code name} with {@code fencingToken}, if it holds it. */
    Optional<Duration> ageOf(String name, long fencingToken) {
        Long since = acquiredAt.get(key(name, fencingToken));
        return since == null ? Optional.empty() : Optional.of(Duration.ofNanos(System.nanoTime() - since));
    }

    private static String key(String name, long fencingToken) {
        return fencingToken + "\u0000" + name;
    }
}
