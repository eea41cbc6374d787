package io.locksmith.tck.fault;

import io.locksmith.LockOptions;
import io.locksmith.tck.FencedRegister;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The victim JVM really stops and dies: a frozen holder misses its renewals and finds its lease lost on resume;
 * a killed one is gone. Against {@code mem://}, which lives inside the child, so only the child's own view is
 * checked here; the fault kit checks the shared-store side against real servers.
 */
class VictimProcessTest {

    private static final Duration START = Duration.ofSeconds(30);

    @Test
    void aFrozenHolderFindsItsLeaseLostWhenItResumes() {
        LockOptions renewing = LockOptions.builder().leaseTime(Duration.ofMillis(300)).renewing().build();
        FencedRegister register = new FencedRegister();
        try (VictimProcess victim = VictimProcess.start("mem://victim-" + UUID.randomUUID(), "stock:1", renewing)) {
            long token = victim.awaitAcquired(START);
            VictimProcess.FencedWrite first = victim.fencedWrite(register, 1);
            assertTrue(first.heldBeforeWrite());
            assertTrue(first.accepted());
            assertEquals(token, first.token());

            victim.pause();
            // The subject is time passing while the process is frozen: nothing in it can signal anything.
            LockSupport.parkNanos(Duration.ofMillis(800).toNanos());
            victim.resume();

            VictimProcess.FencedWrite late = victim.fencedWrite(register, 2);
            assertFalse(late.heldBeforeWrite(), "a holder frozen for 800 ms past a 300 ms lease still saw it held");
            assertTrue(late.lossReason().equals("EXPIRED") || late.lossReason().equals("STORE_UNREACHABLE"),
                    late.lossReason());
            await().atMost(Duration.ofSeconds(5)).until(() -> !victim.lossReports().isEmpty());
        }
    }

    @Test
    void aKilledHolderIsGoneAndAReleasedOneSaysSo() {
        LockOptions fixed = LockOptions.builder().leaseTime(Duration.ofSeconds(30)).fixedLease().build();
        try (VictimProcess released = VictimProcess.start("mem://victim-" + UUID.randomUUID(), "a", fixed);
             VictimProcess killed = VictimProcess.start("mem://victim-" + UUID.randomUUID(), "b", fixed)) {
            released.awaitAcquired(START);
            killed.awaitAcquired(START);
            released.release();
            killed.kill();
            assertFalse(killed.isAlive());
            assertTrue(released.isAlive());
            assertTrue(released.lossReports().isEmpty(), released.lossReports().toString());
        }
    }
}
