package io.locksmith.lockctl.demo;

import java.time.Duration;
import java.util.Objects;

/**
 * The knobs of the oversell demo. Both runs (naive lock and Locksmith) use the same settings, the same
 * order numbers and the same seeded schedule of slow calls, so the difference in the results comes from
 * the lock and the fence alone.
 *
 * @param uri           the store the Locksmith run uses, e.g. {@code mem://}
 * @param instances     how many service instances sell at once (one lock client each)
 * @param orders        how many orders arrive in total
 * @param stock         units of the hot item in stock at the start
 * @param lease         the fixed lease time of both locks (the naive lock's TTL, Locksmith's lease)
 * @param stallEvery    every this many-th call to the slow dependency stalls past the lease
 * @param gcPauseEvery  every this many-th order pauses (as a GC pause would) between its lease check and its write
 * @param seed          seeds the normal latency of the dependency
 */
public record DemoSettings(String uri, int instances, int orders, int stock, Duration lease, int stallEvery,
                           int gcPauseEvery, long seed) {

    /** A stall lasts this many lease times: long enough for the others to sell out meanwhile. */
    public static final int STALL_LEASES = 5;

    public DemoSettings {
        Objects.requireNonNull(uri, "uri cannot be null");
        Objects.requireNonNull(lease, "lease cannot be null");
        requireAtLeast(instances, 2, "instances");
        requireAtLeast(orders, 1, "orders");
        requireAtLeast(stock, 1, "stock");
        requireAtLeast(stallEvery, 2, "stallEvery");
        requireAtLeast(gcPauseEvery, 2, "gcPauseEvery");
        if (lease.compareTo(Duration.ofMillis(20)) < 0 || lease.compareTo(Duration.ofSeconds(10)) > 0) {
            throw new IllegalArgumentException("lease must be between 20ms and 10s, was " + lease);
        }
    }

    /** The defaults: 4 instances, 40 orders, 20 units, a 100 ms lease, every 7th call stalls, seed 7, on {@code mem://}. */
    public static DemoSettings defaults() {
        return new DemoSettings("mem://", 4, 40, 20, Duration.ofMillis(100), 7, 9, 7);
    }

    public DemoSettings withUri(String newUri) {
        return new DemoSettings(newUri, instances, orders, stock, lease, stallEvery, gcPauseEvery, seed);
    }

    public DemoSettings withInstances(int n) {
        return new DemoSettings(uri, n, orders, stock, lease, stallEvery, gcPauseEvery, seed);
    }

    public DemoSettings withOrders(int n) {
        return new DemoSettings(uri, instances, n, stock, lease, stallEvery, gcPauseEvery, seed);
    }

    public DemoSettings withStock(int n) {
        return new DemoSettings(uri, instances, orders, n, lease, stallEvery, gcPauseEvery, seed);
    }

    public DemoSettings withLease(Duration d) {
        return new DemoSettings(uri, instances, orders, stock, d, stallEvery, gcPauseEvery, seed);
    }

    public DemoSettings withSeed(long s) {
        return new DemoSettings(uri, instances, orders, stock, lease, stallEvery, gcPauseEvery, s);
    }

    /** How long a stalled call lasts. */
    public Duration stall() {
        return lease.multipliedBy(STALL_LEASES);
    }

    private static void requireAtLeast(int value, int min, String what) {
        if (value < min) {
            throw new IllegalArgumentException(what + " must be at least " + min + ", was " + value);
        }
    }
}
