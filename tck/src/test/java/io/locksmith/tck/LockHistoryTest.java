package io.locksmith.tck;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The history checker of R1.5 against hand-made histories: what the lock model allows and what it does not. */
class LockHistoryTest {

    @Test
    void handoversAndReportedLossesAreAllowed() {
        LockHistory history = new LockHistory();
        LockHistory.Holding first = history.granted("a", "c1", 1, "tryAcquire()", System.nanoTime());
        first.releasing();
        LockHistory.Holding second = history.granted("a", "c2", 2, "tryAcquire()", System.nanoTime());
        second.lostReported("EXPIRED");
        history.granted("a", "c3", 3, "tryAcquire()", System.nanoTime());
        history.granted("b", "c1", 4, "tryAcquire()", System.nanoTime());
        assertEquals(java.util.Optional.empty(), history.check(true));
    }

    @Test
    void twoHoldersAtOnceAreTheFirstViolationWithBothEvents() {
        LockHistory history = new LockHistory();
        history.granted("a", "c1", 1, "tryAcquire()", System.nanoTime());
        history.granted("a", "c2", 2, "acquire(2000ms)", System.nanoTime());
        String violation = history.check(false).orElseThrow();
        assertTrue(violation.contains("overlap") && violation.contains("c1") && violation.contains("c2"), violation);
    }

    @Test
    void aDroppedLockMustBeReportedAndExcusesTheOverlap() {
        LockHistory history = new LockHistory();
        LockHistory.Holding dropped = history.granted("a", "c1", 1, "tryAcquire()", System.nanoTime());
        dropped.droppedByKit();
        history.granted("a", "c2", 2, "tryAcquire()", System.nanoTime());
        dropped.releasing();
        assertTrue(history.check(true).orElseThrow().contains("never reported"));
        dropped.lostReported("TAKEN_AWAY");
        assertEquals(java.util.Optional.empty(), history.check(true));
    }

    @Test
    void tokensMustIncreaseWithFencing() {
        LockHistory history = new LockHistory();
        history.granted("a", "c1", 7, "tryAcquire()", System.nanoTime()).releasing();
        history.granted("a", "c2", 7, "tryAcquire()", System.nanoTime());
        assertTrue(history.check(true).orElseThrow().contains("fencing tokens did not increase"));
        assertEquals(java.util.Optional.empty(), history.check(false));
    }

    @Test
    void aCallPastItsBoundIsAViolation() {
        LockHistory history = new LockHistory();
        history.completed("tryAcquire() of 'a'", System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(50),
                TimeUnit.MILLISECONDS.toNanos(1), true, true);
        assertTrue(history.check(false).orElseThrow().contains("outlived its bound"));
        assertEquals(1, history.contendedAttempts());
    }
}
