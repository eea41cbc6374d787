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
 * <li><b>overlaps</b>: a holding entered while another was still inside, on this JVM's monotonic clock (shared
 *     holdings, {@link #enterShared}, may be inside together: only an exclusive one beside any other counts).
 *     Mutual exclusion was broken in time (fencing may still have saved the data).</li>
 * <li><b>stale writes rejected</b>: a write whose token was below the highest seen. The fence did its job.</li>
 * <li><b>stale writes accepted</b>: a write the register could not tell from a current one although it came
 *     from another holding with the same token as the latest writer. The data is at risk.</li>
 * <li><b>token monotonicity violations</b>: a holding whose token was not greater than the token of a holding
 *     that had ended before it began.</li>
 * <li>every hold interval, and every stale write (the first 10,000), on {@link System#nanoTime()}.</li>
 * </ul>
 * Thread-safe.
 */
public final class FencedRegister {

    /** One holding's time inside the critical section; {@code shared} for a reader ({@link #enterShared}). */
    public record HoldInterval(String holderId, long token, long startNanos, long endNanos, boolean shared) {
    }

    /**
     * A stale write, when it came ({@link System#nanoTime()}): rejected because its token was below the highest seen,
     * or accepted although another holding had written with the same token. For a timeline of a run.
     */
    public record StaleWrite(String writerId, long token, long highestToken, long atNanos, boolean accepted) {
    }

    private final Object writeLock = new Object();
    private long highestToken = Long.MIN_VALUE;
    private String highestWriter;
    private long value;
    private long acceptedWrites;
    private long staleWritesRejected;
    private long staleWritesAccepted;

    private final AtomicInteger inside = new AtomicInteger();
    /** Shared holdings (a read-write lock's readers) inside: they may overlap each other, never an exclusive one. */
    private final AtomicInteger insideShared = new AtomicInteger();
    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicLong readsAccepted = new AtomicLong();
    private final AtomicLong staleReadsRejected = new AtomicLong();
    private final ConcurrentLinkedQueue<HoldInterval> intervals = new ConcurrentLinkedQueue<>();
    /** The holdings inside now, for the record of an overlap. */
    private final java.util.Set<Hold> insideNow = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** What each overlap was (the first {@link #MAX_OVERLAP_RECORDS}): who entered, and who was inside. */
    private final ConcurrentLinkedQueue<String> overlapRecords = new ConcurrentLinkedQueue<>();
    private static final int MAX_OVERLAP_RECORDS = 20;
    /** The first {@link #MAX_STALE_WRITE_RECORDS} stale writes, with their times. */
    private final ConcurrentLinkedQueue<StaleWrite> staleWriteRecords = new ConcurrentLinkedQueue<>();
    private static final int MAX_STALE_WRITE_RECORDS = 10_000;

    /**
     * A holder enters its critical section with its lease's token. {@code holderId} must be unique per
     * holding (not per client): two holdings that got the same token are then told apart.
     *
     * @throws NullPointerException if {@code holderId} is null
     */
    public Hold enter(long token, String holderId) {
        Objects.requireNonNull(holderId, "holderId cannot be null");
        // Each side counts itself in before it looks at the other (atomics are sequentially consistent), so of an
        // exclusive and a shared holding entering at once at least one sees the other.
        Hold hold = new Hold(token, holderId, System.nanoTime(), false);
        if (inside.incrementAndGet() > 1 || insideShared.get() > 0) {
            overlaps.incrementAndGet();
            recordOverlap(hold);
        }
        insideNow.add(hold);
        return hold;
    }

    private void recordOverlap(Hold entering) {
        if (overlapRecords.size() >= MAX_OVERLAP_RECORDS) {
            return;
        }
        StringBuilder record = new StringBuilder().append(java.time.Instant.now()).append(": ")
                .append(entering.shared ? "reader " : "").append(entering.holderId)
                .append(" (token ").append(entering.token).append(") entered while inside:");
        for (Hold other : insideNow) {
            record.append(' ').append(other.shared ? "reader " : "").append(other.holderId).append(" (token ")
                    .append(other.token).append(", for ")
                    .append(java.util.concurrent.TimeUnit.NANOSECONDS.toMicros(entering.start - other.start))
                    .append(" us)");
        }
        overlapRecords.add(record.toString());
    }

    /**
     * What the first overlaps were: the holding that entered and each one inside then, with tokens and for how long
     * it had been inside. Holder ids are the caller's ({@link ContentionWorkload}'s say whether the lease was still
     * held when it entered).
     */
    public List<String> overlapRecords() {
        return List.copyOf(overlapRecords);
    }

    /**
     * A shared holder (a reader of a read-write lock) enters with its lease's token: it may be inside beside other
     * shared holders, and an overlap is counted if an exclusive holding is inside (a writer beside a reader). Its
     * {@link Hold#read()} is fenced as a write is: a reader whose token is below the highest written is stale.
     *
     * @throws NullPointerException if {@code holderId} is null
     */
    public Hold enterShared(long token, String holderId) {
        Objects.requireNonNull(holderId, "holderId cannot be null");
        Hold hold = new Hold(token, holderId, System.nanoTime(), true);
        insideShared.incrementAndGet();
        if (inside.get() > 0) {
            overlaps.incrementAndGet();
            recordOverlap(hold);
        }
        insideNow.add(hold);
        return hold;
    }

    /**
     * A fenced read: accepted if {@code token} is not below the highest token written (no writer came in after this
     * reader's grant), else counted as a stale read rejected.
     *
     * @return true if the read was accepted
     */
    public boolean read(long token) {
        synchronized (writeLock) {
            if (token < highestToken) {
                staleReadsRejected.incrementAndGet();
                return false;
            }
        }
        readsAccepted.incrementAndGet();
        return true;
    }

    /** Fenced reads accepted. */
    public long readsAccepted() {
        return readsAccepted.get();
    }

    /** Fenced reads rejected: the reader's token was below a later writer's. */
    public long staleReadsRejected() {
        return staleReadsRejected.get();
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
                recordStaleWrite(writerId, token, false);
                return false;
            }
            if (token == highestToken && !writerId.equals(highestWriter)) {
                // Two holdings with one token: the fence cannot tell the stale one, so it gets through.
                staleWritesAccepted++;
                recordStaleWrite(writerId, token, true);
            }
            highestToken = token;
            highestWriter = writerId;
            value = newValue;
            acceptedWrites++;
            return true;
        }
    }

    private void recordStaleWrite(String writerId, long token, boolean accepted) {
        if (staleWritesRejected + staleWritesAccepted <= MAX_STALE_WRITE_RECORDS) {
            staleWriteRecords.add(new StaleWrite(writerId, token, highestToken, System.nanoTime(), accepted));
        }
    }

    /** The stale writes (the first 10,000), in the order they came, with their times. */
    public List<StaleWrite> staleWrites() {
        return List.copyOf(staleWriteRecords);
    }

    /** One holding inside the critical section; closing it leaves. */
    public final class Hold implements AutoCloseable {
        private final long token;
        private final String holderId;
        private final long start;
        private final boolean shared;
        private boolean closed;

        private Hold(long token, String holderId, long start, boolean shared) {
            this.token = token;
            this.holderId = holderId;
            this.start = start;
            this.shared = shared;
        }

        /** A fenced read with this holding's token ({@link FencedRegister#read(long)}); false if it is stale. */
        public boolean read() {
            return FencedRegister.this.read(token);
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
            insideNow.remove(this);
            intervals.add(new HoldInterval(holderId, token, start, System.nanoTime(), shared));
            (shared ? insideShared : inside).decrementAndGet();
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
     * with a fencing store, always 0. Two shared holdings are not compared: readers granted in one order may enter and
     * leave in another, since neither excludes the other; a reader and a writer exclude each other, so theirs are.
     */
    public long tokenMonotonicityViolations() {
        List<HoldInterval> byStart = new ArrayList<>(intervals);
        byStart.sort(Comparator.comparingLong(HoldInterval::startNanos));
        List<HoldInterval> byEnd = new ArrayList<>(byStart);
        byEnd.sort(Comparator.comparingLong(HoldInterval::endNanos));
        long violations = 0;
        long highestEnded = Long.MIN_VALUE;
        long highestEndedExclusive = Long.MIN_VALUE;
        int ended = 0;
        int endedExclusive = 0;
        for (HoldInterval interval : byStart) {
            while (ended < byEnd.size() && byEnd.get(ended).endNanos() < interval.startNanos()) {
                HoldInterval done = byEnd.get(ended);
                highestEnded = Math.max(highestEnded, done.token());
                if (!done.shared()) {
                    highestEndedExclusive = Math.max(highestEndedExclusive, done.token());
                    endedExclusive++;
                }
                ended++;
            }
            boolean behind = interval.shared()
                    ? endedExclusive > 0 && interval.token() <= highestEndedExclusive
                    : ended > 0 && interval.token() <= highestEnded;
            if (behind) {
                violations++;
            }
        }
        return violations;
    }

    @Override
    public String toString() {
        return "FencedRegister[highestToken=" + highestToken() + ", accepted=" + acceptedWrites() + ", staleRejected="
                + staleWritesRejected() + ", staleAccepted=" + staleWritesAccepted() + ", overlaps=" + overlaps()
                + (readsAccepted() + staleReadsRejected() > 0 ? ", reads=" + readsAccepted() + ", staleReadsRejected="
                + staleReadsRejected() : "") + "]";
    }
}
