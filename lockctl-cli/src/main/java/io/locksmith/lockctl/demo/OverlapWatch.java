package io.locksmith.lockctl.demo;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Watches the critical section from outside, as a post-mortem would from the logs: who is inside, and
 * whether they still believe they hold the lock. Measurement only; the services never consult it.
 * A holding counts as overlapped once, however many holders came in while it was inside.
 */
final class OverlapWatch {

    private final Map<Long, BooleanSupplier> inside = new ConcurrentHashMap<>();
    private final Set<Long> overlapped = ConcurrentHashMap.newKeySet();
    private final Set<Long> overlappedUnaware = ConcurrentHashMap.newKeySet();

    /** Holder {@code holding} enters; {@code believesHeld} says whether it still thinks it holds the lock. */
    void enter(long holding, BooleanSupplier believesHeld) {
        for (Map.Entry<Long, BooleanSupplier> other : inside.entrySet()) {
            overlapped.add(other.getKey());
            if (other.getValue().getAsBoolean()) {
                overlappedUnaware.add(other.getKey());
            }
        }
        inside.put(holding, believesHeld);
    }

    void exit(long holding) {
        inside.remove(holding);
    }

    /** Holdings that another holder joined while they were inside. */
    int overlaps() {
        return overlapped.size();
    }

    /** Of those, the holdings that still believed they held the lock when joined. */
    int unawareOverlaps() {
        return overlappedUnaware.size();
    }
}
