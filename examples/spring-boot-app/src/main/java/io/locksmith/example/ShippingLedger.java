package io.locksmith.example;

import org.springframework.stereotype.Component;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The resource the lock protects: a ledger of shipments that, like a database row with a fence column, rejects
 * writes carrying a fencing token older than the last one it accepted, and counts overlapping writers.
 */
@Component
public class ShippingLedger {

    private final Map<Long, Long> lastToken = new ConcurrentHashMap<>();
    private final Map<Long, AtomicInteger> writers = new ConcurrentHashMap<>();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicInteger shipments = new AtomicInteger();

    /**
     * Records a shipment of {@code orderId} fenced by {@code token}.
     *
     * @return whether the write was accepted (false: a newer holder has written since, so this one is stale)
     */
    public boolean ship(long orderId, long token) {
        AtomicInteger active = writers.computeIfAbsent(orderId, id -> new AtomicInteger());
        if (active.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
        }
        try {
            boolean[] accepted = {false};
            // "UPDATE ... SET fence = :token WHERE order_id = :id AND fence < :token", in memory.
            lastToken.compute(orderId, (id, last) -> {
                accepted[0] = last == null || last < token;
                return accepted[0] ? token : last;
            });
            if (accepted[0]) {
                shipments.incrementAndGet();
            }
            return accepted[0];
        } finally {
            active.decrementAndGet();
        }
    }

    /** How often two writers were inside {@link #ship} for the same order at once: 0 under a working lock. */
    public int overlaps() {
        return overlaps.get();
    }

    /** Accepted shipments. */
    public int shipments() {
        return shipments.get();
    }
}
