package io.locksmith.internal;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * How long a waiter parks between attempts. With release notification the park is only a safety net
 * against a lost message, so it starts long; without, it grows exponentially from 10 ms. Always with
 * jitter, so waiters that started together do not hit the store together.
 */
final class Backoff {

    private static final long FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long POLL_CAP_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final long cap;
    private long current;

    Backoff(boolean notifying, long maxPollNanos) {
        this.cap = notifying ? maxPollNanos : Math.min(POLL_CAP_NANOS, maxPollNanos);
        this.current = notifying ? cap : Math.min(FIRST_NANOS, cap);
    }

    /** The next pause: between half and all of the current step, which then doubles up to the cap. */
    long next() {
        long step = current;
        current = Math.min(cap, current * 2);
        long half = Math.max(1, step / 2);
        return half + ThreadLocalRandom.current().nextLong(half);
    }
}
