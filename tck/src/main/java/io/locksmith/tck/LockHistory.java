package io.locksmith.tck;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A recorded history of lock operations, checked against the lock model, in the manner of Jepsen's
 * checkers: every call is recorded as an invocation and a completion on the monotonic clock
 * ({@link System#nanoTime()}), never judged on a final state, and {@link #check} reports the first violating
 * pair of events with both of them.
 *
 * <p>The model: a name is held by at most one holding at a time. A holding begins when its acquire completes
 * and ends when its release is invoked, or when the holder was told it lost the lock, whichever comes first.
 * A later holding of the name may begin before an earlier one ended only if the earlier one had been reported
 * lost before the later acquire completed, or if the kit itself dropped the earlier lock behind its holder's
 * back (a deliberate fault); a lock the kit dropped must then be reported lost to its holder by the time it
 * is released. With fencing, a holding that begins after another ended has a greater token. No call may
 * outlive its bound. Thread-safe.
 */
public final class LockHistory {

    /** One holding of a lock, from its acquire's invocation to its release. Mutable while it runs; thread-safe. */
    public static final class Holding {
        final long id;
        final String name;
        final String holder;
        final long token;
        final String operation;
        final long invokedAt;
        final long grantedAt;
        volatile long releaseInvokedAt = Long.MAX_VALUE;
        volatile long lostReportedAt = Long.MAX_VALUE;
        volatile long droppedByKitAt = Long.MAX_VALUE;
        volatile String lossReason;

        Holding(long id, String name, String holder, long token, String operation, long invokedAt, long grantedAt) {
            this.id = id;
            this.name = name;
            this.holder = holder;
            this.token = token;
            this.operation = operation;
            this.invokedAt = invokedAt;
            this.grantedAt = grantedAt;
        }

        /** The name of the lock held. */
        public String name() {
            return name;
        }

        /** The holder was told (callback) that the lock is lost, now. */
        public void lostReported(String reason) {
            if (lostReportedAt == Long.MAX_VALUE) {
                lossReason = reason;
                lostReportedAt = System.nanoTime();
            }
        }

        /** The kit dropped this holding's lock in the store, now. */
        public void droppedByKit() {
            droppedByKitAt = System.nanoTime();
        }

        /** The holder invokes its release, now. */
        public void releasing() {
            releaseInvokedAt = System.nanoTime();
        }

        long endedAt() {
            return Math.min(releaseInvokedAt, lostReportedAt);
        }

        @Override
        public String toString() {
            return "holding #" + id + " of '" + name + "' by " + holder + " (token " + token + ", " + operation
                    + ", invoked " + micros(invokedAt) + ", granted " + micros(grantedAt) + ", release invoked "
                    + micros(releaseInvokedAt) + ", loss reported " + micros(lostReportedAt)
                    + (lossReason == null ? "" : " (" + lossReason + ")")
                    + (droppedByKitAt == Long.MAX_VALUE ? "" : ", dropped by the kit " + micros(droppedByKitAt)) + ")";
        }
    }

    /** A call and its bound. */
    private record Call(String what, long invokedAt, long completedAt, long boundNanos) {
        @Override
        public String toString() {
            return what + " invoked " + micros(invokedAt) + ", completed " + micros(completedAt) + " ("
                    + (completedAt - invokedAt) / 1_000_000 + " ms, bound " + boundNanos / 1_000_000 + " ms)";
        }
    }

    private static volatile long origin = System.nanoTime();
    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentLinkedQueue<Holding> holdings = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
    private final AtomicLong contendedAttempts = new AtomicLong();
    private final AtomicLong attempts = new AtomicLong();

    public LockHistory() {
        origin = System.nanoTime();
    }

    /** An acquire invoked at {@code invokedAt} completed now with a grant. */
    public Holding granted(String name, String holder, long token, String operation, long invokedAt) {
        long now = System.nanoTime();
        Holding holding = new Holding(ids.incrementAndGet(), Objects.requireNonNull(name), holder, token, operation,
                invokedAt, now);
        holdings.add(holding);
        return holding;
    }

    /**
     * A call that took from {@code invokedAt} to now, and should have taken no longer than {@code boundNanos}.
     * {@code contended}: it was an acquire attempt on a name that was held at its invocation.
     */
    public void completed(String what, long invokedAt, long boundNanos, boolean acquireAttempt, boolean contended) {
        calls.add(new Call(what, invokedAt, System.nanoTime(), boundNanos));
        if (acquireAttempt) {
            attempts.incrementAndGet();
        }
        if (contended) {
            contendedAttempts.incrementAndGet();
        }
    }

    /** Acquire attempts recorded. */
    public long attempts() {
        return attempts.get();
    }

    /** Acquire attempts made while the name was held by another holding: each a chance for a double grant. */
    public long contendedAttempts() {
        return contendedAttempts.get();
    }

    /** Holdings recorded. */
    public int holdings() {
        return holdings.size();
    }

    /**
     * Checks the history against the lock model.
     *
     * @param fencing whether tokens must strictly increase per name
     * @return the first violation, naming both events, or empty if the history is one the model allows
     */
    public Optional<String> check(boolean fencing) {
        List<Holding> all = new ArrayList<>(holdings);
        all.sort(Comparator.comparingLong((Holding h) -> h.grantedAt));
        for (Holding holding : all) {
            if (holding.droppedByKitAt != Long.MAX_VALUE && holding.releaseInvokedAt != Long.MAX_VALUE
                    && holding.lostReportedAt == Long.MAX_VALUE) {
                return Optional.of("a lost lease was never reported: the kit dropped the lock of " + holding
                        + " in the store, and its holder was not told by the time it released it (release must answer"
                        + " false when it removed nothing, and renew false when the lock is gone)");
            }
        }
        for (int i = 0; i < all.size(); i++) {
            Holding later = all.get(i);
            for (int j = 0; j < i; j++) {
                Holding earlier = all.get(j);
                if (!earlier.name.equals(later.name)) {
                    continue;
                }
                boolean overlaps = later.grantedAt < earlier.endedAt();
                boolean excused = earlier.droppedByKitAt < later.grantedAt || earlier.lostReportedAt <= later.grantedAt;
                if (overlaps && !excused) {
                    return Optional.of("two holdings overlap and the earlier was not reported lost before the later"
                            + " began: " + earlier + " and " + later);
                }
                if (fencing && earlier.endedAt() < later.invokedAt && later.token <= earlier.token) {
                    return Optional.of("fencing tokens did not increase: " + later + " began after " + earlier
                            + " ended, with a token not greater");
                }
            }
        }
        for (Call call : calls) {
            if (call.completedAt - call.invokedAt > call.boundNanos) {
                return Optional.of("a call outlived its bound: " + call);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "LockHistory[" + holdings.size() + " holdings, " + attempts + " acquire attempts, " + contendedAttempts
                + " of them on a held name, " + calls.size() + " calls]";
    }

    private static String micros(long nanos) {
        return nanos == Long.MAX_VALUE ? "never" : "+" + (nanos - origin) / 1_000 + " us";
    }
}
