package io.locksmith.tck;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A resource guarded by fencing tokens, as a database row with {@code UPDATE ... WHERE fence <= ?} would be:
 * it accepts a write only if its token is at least the highest token it has seen, and it records what it
 * saw so that a test can judge the lock that guarded it.
 * <pre>{@code
 * try (Lease lease = lock.acquire(wait);
 *      FencedRegister.Hold hold = register.enter(lease.fencingToken(), holderId)) {
 *     hold.write(value);          // false: a newer holder already wrote, this holder is stale
 * }
 * }</pre>
 *
 * <p>It records:
 * <ul>
 * <li><b>overlaps</b>: a holding entered while another was still inside, on this JVM's monotonic clock.
 *     Mutual exclusion was broken in time (fencing may still have saved the data).</li>
 * <li><b>stale writes rejected</b>: a write whose token was below the highest seen. The fence did its job.</li>
 * <li><b>stale writes accepted</b>: a write the register could not tell from a current one although it came
 *     from another holding with the same token as the latest writer. The data is at risk.</li>
 * <li><b>token monotonicity violations</b>: a holding whose token was not greater than the token of a holding
 *     that had ended before it began.</li>
 * <li>every hold interval, on {@link System#nanoTime()}.</li>
 * </ul>
 * Thread-safe.
 */
public final class FencedRegister {

    /** One holding's time inside the critical section. */
    public record HoldInterval(String holderId, long token, long startNanos, long endNanos) {
    }

    private final Object writeLock = new Object();
    private long highestToken = Long.MIN_VALUE;
    private String highestWriter;
    private long value;
    private long acceptedWrites;
    private long staleWritesRejected;
    private long staleWritesAccepted;

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicLong overlaps = new AtomicLong();
    private final ConcurrentLinkedQueue<HoldInterval> intervals = new ConcurrentLinkedQueue<>();

    /**
     * A holder enters its critical section with its lease's token. {@code holderId} must be unique per
     * holding (not per client): two holdings that got the same token are then told apart.
     *
     * @throws NullPointerException if {@code holderId} is null
     */
    public Hold enter(long token, String holderId) {
        Objects.requireNonNull(holderId, "holderId cannot be null");
        if (inside.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
        }
        return new Hold(token, holderId, System.nanoTime());
    }

    /**
     * Writes {@code newValue} if {@code token} is not below the highest token seen.
     *
     * @return true if the write was accepted
     * @throws NullPointerException if {@code writerId} is null
     */
    public boolean write(long token, String writerId, long newValue) {
        Objects.requireNonNull(writerId, "writerId cannot be null");
        synchronized (writeLock) {
            if (token < highestToken) {
                staleWritesRejected++;
                return false;
            }
            if (token == highestToken && !writerId.equals(highestWriter)) {
                // Two holdings with one token: the fence cannot tell the stale one, so it gets through.
                staleWritesAccepted++;
            }
            highestToken = token;
            highestWriter = writerId;
            value = newValue;
            acceptedWrites++;
            return true;
        }
    }

    /** One holding inside the critical section; closing it leaves. */
    public final class Hold implements AutoCloseable {
        private final long token;
        private final String holderId;
        private final long start;
        private boolean closed;

        private Hold(long token, String holderId, long start) {
            this.token = token;
            this.holderId = holderId;
            this.start = start;
        }

        /** Writes through the fence with this holding's token; false if it was rejected as stale. */
        public boolean write(long newValue) {
            return FencedRegister.this.write(token, holderId, newValue);
        }

        /** The token this holding entered with. */
        public long token() {
            return token;
        }

        /** Leaves the critical section and records the interval. Idempotent. */
        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            intervals.add(new HoldInterval(holderId, token, start, System.nanoTime()));
            inside.decrementAndGet();
        }
    }

    /** Holdings that entered while another holding was inside. */
    public long overlaps() {
        return overlaps.get();
    }

    /** Writes rejected because their token was below the highest seen. */
    public long staleWritesRejected() {
        synchronized (writeLock) {
            return staleWritesRejected;
        }
    }

    /** Writes accepted although another holding had already written with the same token. */
    public long staleWritesAccepted() {
        synchronized (writeLock) {
            return staleWritesAccepted;
        }
    }

    /** Writes accepted. */
    public long acceptedWrites() {
        synchronized (writeLock) {
            return acceptedWrites;
        }
    }

    /** The last accepted value. */
    public long value() {
        synchronized (writeLock) {
            return value;
        }
    }

    /** The highest token seen, or {@link Long#MIN_VALUE} before the first write. */
    public long highestToken() {
        synchronized (writeLock) {
            return highestToken;
        }
    }

    /** The closed holdings, in the order they ended. */
    public List<HoldInterval> intervals() {
        return List.copyOf(intervals);
    }

    /**
     * Holdings whose token was not greater than that of a holding which had already ended when they began:
     * with a fencing store, always 0.
     */
    public long tokenMonotonicityViolations() {
        List<HoldInterval> byStart = new ArrayList<>(intervals);
        byStart.sort(Comparator.comparingLong(HoldInterval::startNanos));
        List<HoldInterval> byEnd = new ArrayList<>(byStart);
        byEnd.sort(Comparator.comparingLong(HoldInterval::endNanos));
        long violations = 0;
        long highestEnded = Long.MIN_VALUE;
        int ended = 0;
        for (HoldInterval interval : byStart) {
            while (ended < byEnd.size() && byEnd.get(ended).endNanos() < interval.startNanos()) {
                highestEnded = Math.max(highestEnded, byEnd.get(ended).token());
                ended++;
            }
            if (ended > 0 && interval.token() <= highestEnded) {
                violations++;
            }
        }
        return violations;
    }

    @Override
    public String toString() {
        return "FencedRegister[highestToken=" + highestToken() + ", accepted=" + acceptedWrites() + ", staleRejected="
                + staleWritesRejected() + ", staleAccepted=" + staleWritesAccepted() + ", overlaps=" + overlaps() + "]";
    }
}
