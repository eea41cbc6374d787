package io.locksmith.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * One deadline for everything a provider call waits for, on the thread that makes the call. A provider that
 * promises {@link LockProvider#callTimeLimit()} must end each call within that limit however many waits the call
 * has (a pooled connection, a connect, several requests or reads, a retry); bounding each wait by the store
 * client's own time-out would let a call of several waits last several time-outs. The provider runs the call
 * {@linkplain #within within} its limit, and its transport asks {@link #remainingNanos(long)} before each wait:
 * <pre>{@code
 * public Optional<LockInfo> inspect(String name) {
 *     return CallDeadline.within(settings.timeout(), () -> inspectOnce(name));
 * }
 * ...
 * future.get(CallDeadline.remainingNanos(timeout.toNanos()), TimeUnit.NANOSECONDS);
 * }</pre>
 *
 * <p>The deadline belongs to the calling thread: threads without one (a pool's evictor, a subscriber, a
 * keep-alive) keep the transport's plain time-outs. A call nested in another keeps the outer deadline. The
 * deadline is measured on {@link System#nanoTime()}.
 *
 * <p>All methods are static; arguments must not be null.
 */
public final class CallDeadline {

    /** No deadline on this thread. */
    private static final long NONE = Long.MIN_VALUE;
    /** A one-element array per thread, so that entering and leaving a call allocates nothing. */
    private static final ThreadLocal<long[]> DEADLINE = ThreadLocal.withInitial(() -> new long[] {NONE});

    private CallDeadline() {
    }

    /**
     * Runs {@code call} with every wait in it ending at most {@code limit} from now, and returns what it returns.
     * Within a call that already runs under a deadline, runs {@code call} under that outer deadline.
     *
     * @throws NullPointerException if {@code limit} or {@code call} is null
     * @throws RuntimeException     what {@code call} throws; the thread's deadline is cleared all the same
     */
    public static <T> T within(Duration limit, Supplier<T> call) {
        Objects.requireNonNull(limit, "limit cannot be null");
        Objects.requireNonNull(call, "call cannot be null");
        long[] deadline = DEADLINE.get();
        if (deadline[0] != NONE) {
            return call.get();
        }
        deadline[0] = System.nanoTime() + limit.toNanos();
        if (deadline[0] == NONE) {
            // The one instant that reads as "no deadline": a nanosecond later is as good.
            deadline[0]++;
        }
        try {
            return call.get();
        } finally {
            deadline[0] = NONE;
        }
    }

    /**
     * Like {@link #within(Duration, Supplier)}, for a call that returns nothing.
     *
     * @throws NullPointerException if {@code limit} or {@code call} is null
     * @throws RuntimeException     what {@code call} throws; the thread's deadline is cleared all the same
     */
    public static void runWithin(Duration limit, Runnable call) {
        Objects.requireNonNull(call, "call cannot be null");
        within(limit, () -> {
            call.run();
            return null;
        });
    }

    /** Whether this thread is inside a call with a deadline ({@link #within}). */
    public static boolean isSet() {
        return DEADLINE.get()[0] != NONE;
    }

    /**
     * Nanoseconds left before this thread's deadline, at most {@code capNanos}, and 0 once it has passed;
     * {@code capNanos} if the thread has no deadline.
     */
    public static long remainingNanos(long capNanos) {
        long deadline = DEADLINE.get()[0];
        return deadline == NONE ? capNanos : Math.max(0, Math.min(capNanos, deadline - System.nanoTime()));
    }
}
