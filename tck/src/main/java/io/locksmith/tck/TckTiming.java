package io.locksmith.tck;

import java.time.Duration;

/**
 * The timing the kit uses against one store, all derived from one scale factor so that a slow store (or a
 * store that counts whole seconds, as etcd does) stretches every bound together.
 * <pre>{@code
 * protected TckTiming timing() {                     // in a LockTck subclass
 *     return TckTiming.defaults().scaledBy(2.5);     // etcd: a 1 s short lease, 5 s of slack
 * }
 * }</pre>
 *
 * <p>No rule sleeps for a fixed time to synchronise: rules await events, and these durations are only the
 * bounds of those waits and the lease times of the expiry rules. Immutable and thread-safe.
 */
public final class TckTiming {

    private static final Duration BASE_SHORT_LEASE = Duration.ofMillis(400);
    private static final Duration BASE_SLACK = Duration.ofSeconds(2);
    private static final Duration BASE_LONG_LEASE = Duration.ofSeconds(30);
    private static final Duration MAX_HISTORY = Duration.ofSeconds(10);
    private static final Duration BASE_EXACT_TTL = Duration.ofMillis(1300);
    private static final Duration BASE_EXPIRY_PRECISION = Duration.ofMillis(300);
    private static final Duration BASE_NOTIFICATION_LATENCY = Duration.ofMillis(250);
    /**
     * A notification-driven waiter parks at least half of the client's default 1 s poll cap between store
     * attempts; a handoff faster than this proves the notification woke it rather than the poll.
     */
    private static final Duration NOTIFICATION_LATENCY_CAP = Duration.ofMillis(400);

    private static final TckTiming DEFAULTS = new TckTiming(1.0);

    private final double scale;

    private TckTiming(double scale) {
        this.scale = scale;
    }

    /** The defaults: a 400 ms short lease and 2 s of slack, suited to an in-JVM or loopback store. */
    public static TckTiming defaults() {
        return DEFAULTS;
    }

    /**
     * These timings stretched by {@code factor}.
     *
     * @throws IllegalArgumentException if {@code factor} is not a positive finite number
     */
    public TckTiming scaledBy(double factor) {
        if (!(factor > 0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("scale factor must be positive and finite, was " + factor);
        }
        return new TckTiming(scale * factor);
    }

    /**
     * The least scale factor at which the kit's short lease is one a store with the given shortest lease honours:
     * 1 for stores that honour 400 ms, else the next half step up ({@code 2.5} for etcd's usual 1 s minimum in tests,
     * {@code 5} for the 2 s of an etcd with the default election time-out).
     *
     * @throws NullPointerException if {@code minimumTtl} is null
     */
    public static double scaleFor(Duration minimumTtl) {
        double needed = (double) minimumTtl.toNanos() / BASE_SHORT_LEASE.toNanos();
        return Math.max(1.0, Math.ceil(needed * 2) / 2);
    }

    /**
     * The defaults stretched by {@link #scaleFor(Duration)}: the timing for a store whose shortest lease is
     * {@code minimumTtl} ({@link io.locksmith.spi.LockProvider#minimumTtl()}).
     */
    public static TckTiming forMinimumTtl(Duration minimumTtl) {
        double scale = scaleFor(minimumTtl);
        return scale == 1.0 ? DEFAULTS : DEFAULTS.scaledBy(scale);
    }

    /** The scale factor relative to {@link #defaults()}. */
    public double scale() {
        return scale;
    }

    /** The lease time of the rules that wait for an expiry; 400 ms by default. */
    public Duration shortLease() {
        return scaled(BASE_SHORT_LEASE);
    }

    /** The allowance for store and scheduling latency on top of any expected time; 2 s by default. */
    public Duration slack() {
        return scaled(BASE_SLACK);
    }

    /** A lease time no rule expects to run out: 30 s by default. */
    public Duration longLease() {
        return scaled(BASE_LONG_LEASE);
    }

    /** A bounded wait that is expected to time out: as long as the short lease. */
    public Duration shortWait() {
        return shortLease();
    }

    /**
     * The handoff latency under which a waiter was woken by a release notification rather than by its poll:
     * 250 ms by default, never more than 400 ms (half the client's default poll cap), whatever the scale.
     */
    public Duration notificationLatency() {
        Duration scaled = scaled(BASE_NOTIFICATION_LATENCY);
        return scaled.compareTo(NOTIFICATION_LATENCY_CAP) > 0 ? NOTIFICATION_LATENCY_CAP : scaled;
    }

    /**
     * A TTL that is not whole seconds, for the rules that probe when a store frees a lock: 1.3 s by default.
     */
    public Duration exactTtl() {
        return scaled(BASE_EXACT_TTL);
    }

    /**
     * How late a store may free a lock after its TTL, or report it, as the kit sees it through polling: the
     * store's expiry granularity plus the kit's poll: 300 ms by default.
     */
    public Duration expiryPrecision() {
        return scaled(BASE_EXPIRY_PRECISION);
    }

    /** The most the randomized history of R1.5 may run: twice the slack, at most 10 s. */
    public Duration historyDuration() {
        Duration twiceTheSlack = slack().multipliedBy(2);
        return twiceTheSlack.compareTo(MAX_HISTORY) > 0 ? MAX_HISTORY : twiceTheSlack;
    }

    /** The most a contention workload may run before it stops starting operations: four times the slack. */
    public Duration workloadDuration() {
        return slack().multipliedBy(4);
    }

    private Duration scaled(Duration base) {
        return Duration.ofNanos(Math.round(base.toNanos() * scale));
    }

    @Override
    public String toString() {
        return "TckTiming[scale=" + scale + ", shortLease=" + shortLease().toMillis() + "ms, slack="
                + slack().toMillis() + "ms]";
    }
}
