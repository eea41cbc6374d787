package io.locksmith.spi;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CallDeadlineTest {

    private static final long CAP = TimeUnit.SECONDS.toNanos(30);

    @Test
    void withoutADeadlineTheCapApplies() {
        assertFalse(CallDeadline.isSet());
        assertEquals(CAP, CallDeadline.remainingNanos(CAP));
    }

    @Test
    void insideACallTheWaitIsBoundedByWhatIsLeft() {
        long left = CallDeadline.within(Duration.ofMillis(200), () -> {
            assertTrue(CallDeadline.isSet());
            return CallDeadline.remainingNanos(CAP);
        });
        assertTrue(left > 0 && left <= TimeUnit.MILLISECONDS.toNanos(200), "left: " + left + " ns");
        assertFalse(CallDeadline.isSet(), "the deadline ends with the call");
        assertEquals(CAP, CallDeadline.remainingNanos(CAP));
    }

    @Test
    void aSmallerCapWins() {
        long left = CallDeadline.within(Duration.ofSeconds(10), () -> CallDeadline.remainingNanos(1_000));
        assertEquals(1_000, left);
    }

    @Test
    void aPassedDeadlineLeavesNothing() {
        assertEquals(0, CallDeadline.within(Duration.ZERO, () -> CallDeadline.remainingNanos(CAP)));
        assertEquals(0, CallDeadline.within(Duration.ofMillis(-5), () -> CallDeadline.remainingNanos(CAP)));
    }

    @Test
    void aNestedCallKeepsTheOuterDeadline() {
        long nested = CallDeadline.within(Duration.ofMillis(100), () ->
                CallDeadline.within(Duration.ofHours(1), () -> CallDeadline.remainingNanos(CAP)));
        assertTrue(nested <= TimeUnit.MILLISECONDS.toNanos(100), "the inner call got " + nested + " ns");
        long[] afterInner = new long[1];
        CallDeadline.runWithin(Duration.ofMillis(100), () -> {
            CallDeadline.runWithin(Duration.ofMillis(50), () -> { });
            afterInner[0] = CallDeadline.remainingNanos(CAP);
        });
        assertTrue(afterInner[0] < CAP, "the inner call must not clear the outer deadline");
    }

    @Test
    void aFailedCallClearsTheDeadline() {
        IllegalStateException failure = new IllegalStateException("store gone");
        IllegalStateException thrown = assertThrows(IllegalStateException.class,
                () -> CallDeadline.runWithin(Duration.ofMillis(100), () -> {
                    throw failure;
                }));
        assertSame(failure, thrown);
        assertFalse(CallDeadline.isSet());
    }

    @Test
    void theDeadlineIsTheCallingThreadsOnly() {
        Boolean otherThreadSees = CallDeadline.within(Duration.ofMillis(500),
                () -> CompletableFuture.supplyAsync(CallDeadline::isSet).join());
        assertFalse(otherThreadSees);
    }

    @Test
    void nullArgumentsAreRefused() {
        assertThrows(NullPointerException.class, () -> CallDeadline.within(null, () -> 1));
        assertThrows(NullPointerException.class, () -> CallDeadline.within(Duration.ofSeconds(1), null));
        assertThrows(NullPointerException.class, () -> CallDeadline.runWithin(Duration.ofSeconds(1), null));
    }
}
