package io.locksmith.micrometer;

import io.locksmith.LockClient;
import io.locksmith.LockEvent;
import io.locksmith.LockListener;
import io.locksmith.LockLostException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.util.Locale;
import java.util.Objects;

/**
 * Micrometer meters for a {@link LockClient}, fed by its listener hook:
 * <pre>{@code
 * LockMetrics metrics = LockMetrics.builder(registry).build();
 * LockClient locks = LockClient.builder().uri("redis://127.0.0.1:6379").listener(metrics).build();
 * metrics.monitorHeldLocks(locks);                 // the locksmith.locks.held gauge
 * }</pre>
 *
 * <table>
 * <caption>Meters</caption>
 * <tr><th>name</th><th>type</th><th>tags</th><th>what</th></tr>
 * <tr><td>{@value #ACQUIRE}</td><td>timer</td><td>outcome = acquired | timeout | failed</td>
 *     <td>time from the acquire call to its outcome: the wait (local re-entries are not timed)</td></tr>
 * <tr><td>{@value #REENTRIES}</td><td>counter</td><td></td><td>acquires served by local re-entry</td></tr>
 * <tr><td>{@value #HOLD}</td><td>timer</td><td>outcome = released | lost</td><td>how long leases were held</td></tr>
 * <tr><td>{@value #LOST}</td><td>counter</td><td>reason = expired | taken_away | max_hold_exceeded |
 *     store_unreachable | session_lost | client_closed</td><td>leases lost while held</td></tr>
 * <tr><td>{@value #RENEWALS}</td><td>counter</td><td>outcome = renewed | failed</td><td>lease renewals</td></tr>
 * <tr><td>{@value #RELEASE_FAILURES}</td><td>counter</td><td></td><td>releases the store could not confirm</td></tr>
 * <tr><td>{@value #HELD}</td><td>gauge</td><td>(no group)</td><td>store locks the client holds now</td></tr>
 * </table>
 * Every meter carries {@code store} (the URI scheme, e.g. {@code redis}) and, except the gauge, {@code group}:
 * a bounded group of the lock name from {@link NameGroups}, never the raw name, so the number of time series
 * stays bounded however many lock names the application uses.
 *
 * <p>Thread-safe; {@link #onEvent} does no I/O and never blocks beyond Micrometer's own meter lookup.
 */
public final class LockMetrics implements LockListener {

    /** Timer: acquire latency (the wait) by outcome. */
    public static final String ACQUIRE = "locksmith.acquire";
    /** Counter: acquires served by a local re-entry. */
    public static final String REENTRIES = "locksmith.reentries";
    /** Timer: how long leases were held, by outcome. */
    public static final String HOLD = "locksmith.hold";
    /** Counter: leases lost while held, by reason. */
    public static final String LOST = "locksmith.lost";
    /** Counter: renewals by outcome. */
    public static final String RENEWALS = "locksmith.renewals";
    /** Counter: releases the store could not confirm. */
    public static final String RELEASE_FAILURES = "locksmith.release.failures";
    /** Gauge: store locks a client holds now. */
    public static final String HELD = "locksmith.locks.held";

    private final MeterRegistry registry;
    private final NameGroups groups;
    private final Tags commonTags;
    private final Meter.MeterProvider<Timer> acquireTimer;
    private final Meter.MeterProvider<Counter> reentries;
    private final Meter.MeterProvider<Timer> holdTimer;
    private final Meter.MeterProvider<Counter> lost;
    private final Meter.MeterProvider<Counter> renewals;
    private final Meter.MeterProvider<Counter> releaseFailures;

    private LockMetrics(Builder builder) {
        this.registry = builder.registry;
        this.groups = builder.groups;
        this.commonTags = builder.tags;
        this.acquireTimer = Timer.builder(ACQUIRE).description("Time from an acquire call to its outcome (the wait)")
                .tags(commonTags).withRegistry(registry);
        this.reentries = Counter.builder(REENTRIES).description("Acquires served by a local re-entry")
                .tags(commonTags).withRegistry(registry);
        this.holdTimer = Timer.builder(HOLD).description("How long leases were held")
                .tags(commonTags).withRegistry(registry);
        this.lost = Counter.builder(LOST).description("Leases lost while held")
                .tags(commonTags).withRegistry(registry);
        this.renewals = Counter.builder(RENEWALS).description("Lease renewals")
                .tags(commonTags).withRegistry(registry);
        this.releaseFailures = Counter.builder(RELEASE_FAILURES).description("Releases the store could not confirm")
                .tags(commonTags).withRegistry(registry);
    }

    /**
     * A builder of metrics recorded in {@code registry}.
     *
     * @throws NullPointerException if {@code registry} is null
     */
    public static Builder builder(MeterRegistry registry) {
        return new Builder(registry);
    }

    @Override
    public void onEvent(LockEvent event) {
        Tags tags = Tags.of("store", event.store(), "group", groups.groupOf(event.lockName()));
        switch (event.type()) {
            case ACQUIRED -> acquireTimer.withTags(tags.and("outcome", "acquired")).record(event.elapsed());
            case ACQUIRE_TIMED_OUT -> acquireTimer.withTags(tags.and("outcome", "timeout")).record(event.elapsed());
            case ACQUIRE_FAILED -> acquireTimer.withTags(tags.and("outcome", "failed")).record(event.elapsed());
            case REENTERED -> reentries.withTags(tags).increment();
            case RELEASED -> holdTimer.withTags(tags.and("outcome", "released")).record(event.elapsed());
            case LOST -> {
                holdTimer.withTags(tags.and("outcome", "lost")).record(event.elapsed());
                lost.withTags(tags.and("reason", lossReason(event))).increment();
            }
            case RENEWED -> renewals.withTags(tags.and("outcome", "renewed")).increment();
            case RENEW_FAILED -> renewals.withTags(tags.and("outcome", "failed")).increment();
            case RELEASE_FAILED -> releaseFailures.withTags(tags).increment();
        }
    }

    /**
     * Registers the {@value #HELD} gauge for {@code client}, tagged with its store scheme. The gauge holds the
     * client weakly, as Micrometer gauges do: keep the client referenced elsewhere (it is, while in use).
     *
     * @param store the store scheme for the {@code store} tag, e.g. {@code redis}
     * @return the gauge
     * @throws NullPointerException if an argument is null
     */
    public Gauge monitorHeldLocks(LockClient client, String store) {
        Objects.requireNonNull(client, "client cannot be null");
        Objects.requireNonNull(store, "store cannot be null");
        return Gauge.builder(HELD, client, LockClient::heldCount)
                .description("Store locks the client holds now (re-entrant leases count once)")
                .tags(commonTags).tag("store", store).tag("client", client.clientId())
                .register(registry);
    }

    /**
     * As {@link #monitorHeldLocks(LockClient, String)}, with the store scheme read from
     * {@link LockClient#describe()} (the text before {@code ://}).
     */
    public Gauge monitorHeldLocks(LockClient client) {
        Objects.requireNonNull(client, "client cannot be null");
        String described = client.describe();
        int end = described.indexOf("://");
        return monitorHeldLocks(client, end > 0 ? described.substring(0, end) : "unknown");
    }

    private static String lossReason(LockEvent event) {
        return event.error() instanceof LockLostException lost && lost.event() != null
                ? lost.event().reason().name().toLowerCase(Locale.ROOT)
                : "unknown";
    }

    /** Builds {@link LockMetrics}. Not thread-safe. */
    public static final class Builder {
        private final MeterRegistry registry;
        private NameGroups groups = NameGroups.byPrefix();
        private Tags tags = Tags.empty();

        private Builder(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry cannot be null");
        }

        /**
         * How lock names become the {@code group} tag. Default: {@link NameGroups#byPrefix()}.
         *
         * @throws NullPointerException if {@code groups} is null
         */
        public Builder nameGroups(NameGroups groups) {
            this.groups = Objects.requireNonNull(groups, "groups cannot be null");
            return this;
        }

        /**
         * Tags added to every meter (an application or client name, say).
         *
         * @throws NullPointerException if {@code tags} is null
         */
        public Builder tags(Iterable<Tag> tags) {
            this.tags = Tags.of(Objects.requireNonNull(tags, "tags cannot be null"));
            return this;
        }

        /** Builds the metrics; meters are created on first use. */
        public LockMetrics build() {
            return new LockMetrics(this);
        }
    }
}
