package io.locksmith;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a lock's leases behave: the lease time (TTL in the store), whether the client renews it while
 * it is held, the maximum time it may be held in total, and what happens on loss.
 *
 * <p>Immutable; made by {@link #builder()}, which validates every value and names the bad one:
 * <pre>{@code
 * LockOptions options = LockOptions.builder()
 *         .leaseTime(Duration.ofSeconds(10))   // the store frees the lock 10 s after the last renewal
 *         .maxHold(Duration.ofMinutes(2))      // renewal stops after 2 minutes: a stuck holder cannot keep it
 *         .onLoss(LossAction.NOTIFY_AND_INTERRUPT_HOLDER)
 *         .build();
 * }</pre>
 *
 * <p>Defaults: a 30 s renewing lease, a maximum hold of 10 minutes, {@link LossAction#NOTIFY}, reentrant.
 *
 * <p>Limits: a lease time of at most {@link #MAX_LEASE_TIME} (one day) and a maximum hold of at most
 * {@link #MAX_HOLD} (30 days). A longer lease is, in practice, a lock that outlives a crashed holder forever;
 * a store also states the shortest lease it can honour, which the client checks when the lock is made.
 */
public final class LockOptions {

    /** Lease time used when none is configured. */
    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);
    /** Maximum hold time used when none is configured. */
    public static final Duration DEFAULT_MAX_HOLD = Duration.ofMinutes(10);
    /** The longest lease time accepted: one day. */
    public static final Duration MAX_LEASE_TIME = Duration.ofDays(1);
    /** The longest maximum hold accepted: 30 days. For a lock renewed without end, see {@link Builder#unboundedHold()}. */
    public static final Duration MAX_HOLD = Duration.ofDays(30);

    private static final LockOptions DEFAULTS = builder().build();

    private final Duration leaseTime;
    private final boolean renewing;
    private final Duration maxHold;
    private final LossAction lossAction;
    private final boolean reentrant;

    private LockOptions(Builder builder) {
        this.leaseTime = builder.leaseTime;
        this.renewing = builder.renewing;
        this.maxHold = builder.maxHold;
        this.lossAction = builder.lossAction;
        this.reentrant = builder.reentrant;
    }

    /** The default options. */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.leaseTime = leaseTime;
        builder.renewing = renewing;
        builder.maxHold = maxHold;
        builder.lossAction = lossAction;
        builder.reentrant = reentrant;
        return builder;
    }

    /** How long the store keeps the lock after the last acquire or renewal. */
    public Duration leaseTime() {
        return leaseTime;
    }

    /** Whether the client renews the lease while it is held (a watchdog), or lets it run out. */
    public boolean isRenewing() {
        return renewing;
    }

    /** The longest a renewing lease is kept alive; empty when unbounded (not recommended). */
    public Optional<Duration> maxHold() {
        return Optional.ofNullable(maxHold);
    }

    /** What happens on loss beyond marking the lease lost. */
    public LossAction lossAction() {
        return lossAction;
    }

    /**
     * Whether a blocking acquire by the thread that holds a lease on the lock, through the same client, re-enters
     * that lease (the default) or waits like any other caller. See {@link Lease} on re-entry and hand-off.
     */
    public boolean isReentrant() {
        return reentrant;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockOptions other && leaseTime.equals(other.leaseTime) && renewing == other.renewing
                && Objects.equals(maxHold, other.maxHold) && lossAction == other.lossAction
                && reentrant == other.reentrant;
    }

    @Override
    public int hashCode() {
        return Objects.hash(leaseTime, renewing, maxHold, lossAction, reentrant);
    }

    @Override
    public String toString() {
        return "LockOptions[leaseTime=" + leaseTime + ", renewing=" + renewing + ", maxHold="
                + (maxHold == null ? "unbounded" : maxHold) + ", onLoss=" + lossAction
                + (reentrant ? "" : ", not reentrant") + "]";
    }

    /** Builds {@link LockOptions}; every setter validates its argument. Not thread-safe. */
    public static final class Builder {
        private Duration leaseTime = DEFAULT_LEASE_TIME;
        private boolean renewing = true;
        private Duration maxHold = DEFAULT_MAX_HOLD;
        private LossAction lossAction = LossAction.NOTIFY;
        private boolean reentrant = true;

        private Builder() {
        }

        /**
         * Sets whether a blocking acquire by a thread that already holds a lease on the lock through the same client
         * re-enters it, sharing its store lock and fencing token (true, the default), or waits for it like any other
         * caller (false). Choose false for callers that never nest: a lease that moves between threads without
         * {@link Lease#handOff()} can then never be re-entered by the thread it left. Asynchronous acquires never
         * re-enter, whatever this says.
         */
        public Builder reentrant(boolean reentrant) {
            this.reentrant = reentrant;
            return this;
        }

        /**
         * Sets the lease time: how long the store keeps the lock after the last acquire or renewal.
         *
         * @throws NullPointerException     if {@code leaseTime} is null
         * @throws IllegalArgumentException if {@code leaseTime} is zero, negative, or longer than {@link #MAX_LEASE_TIME}
         */
        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = requireWithin(leaseTime, "leaseTime", MAX_LEASE_TIME);
            return this;
        }

        /** The client renews the lease at a third of the lease time while it is held (the default). */
        public Builder renewing() {
            this.renewing = true;
            return this;
        }

        /** The lease is never renewed: it ends after the lease time, and the holder is told it was lost. */
        public Builder fixedLease() {
            this.renewing = false;
            return this;
        }

        /**
         * Sets the maximum hold: after this long, renewal stops and the lease runs out.
         *
         * @throws NullPointerException     if {@code maxHold} is null
         * @throws IllegalArgumentException if {@code maxHold} is zero, negative, or longer than {@link #MAX_HOLD}
         */
        public Builder maxHold(Duration maxHold) {
            this.maxHold = requireWithin(maxHold, "maxHold", MAX_HOLD);
            return this;
        }

        /** Renewal never stops while the lease is held. A stuck holder then keeps the lock forever. */
        public Builder unboundedHold() {
            this.maxHold = null;
            return this;
        }

        /**
         * Sets what happens on loss beyond marking the lease lost.
         *
         * @throws NullPointerException if {@code action} is null
         */
        public Builder onLoss(LossAction action) {
            this.lossAction = Objects.requireNonNull(action, "action cannot be null");
            return this;
        }

        /**
         * Builds the options.
         *
         * @throws IllegalArgumentException if the maximum hold is shorter than the lease time
         */
        public LockOptions build() {
            if (maxHold != null && maxHold.compareTo(leaseTime) < 0) {
                throw new IllegalArgumentException("maxHold (" + maxHold + ") must not be shorter than leaseTime ("
                        + leaseTime + ")");
            }
            return new LockOptions(this);
        }

        private static Duration requireWithin(Duration value, String what, Duration max) {
            Objects.requireNonNull(value, what + " cannot be null");
            if (value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(what + " must be positive, was " + value);
            }
            if (value.compareTo(max) > 0) {
                throw new IllegalArgumentException(what + " must be at most " + max + ", was " + value
                        + " (a lock must free itself within a bounded time after its holder dies)");
            }
            return value;
        }
    }
}
