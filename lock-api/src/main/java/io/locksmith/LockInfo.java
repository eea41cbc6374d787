package io.locksmith;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What the store says about a held lock, as returned by {@link LockClient#inspect(String)}.
 *
 * @param lockName      name of the lock
 * @param holder        who holds it
 * @param fencingToken  the current holder's fencing token
 * @param remaining     how long the store keeps the lock without a renewal, when the store knows;
 *                      {@code null} for session-bound stores
 * @param waiters       holders queued behind it, when the store keeps a queue; empty otherwise
 */
public record LockInfo(String lockName, HolderIdentity holder, long fencingToken, Duration remaining,
                       List<HolderIdentity> waiters) {

    public LockInfo {
        waiters = waiters == null ? List.of() : List.copyOf(waiters);
    }

    /** The time left before the store frees the lock on its own, if the store has one. */
    public Optional<Duration> timeToLive() {
        return Optional.ofNullable(remaining);
    }
}
