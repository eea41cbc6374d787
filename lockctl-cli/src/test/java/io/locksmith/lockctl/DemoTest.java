package io.locksmith.lockctl;

import io.locksmith.lockctl.demo.CrashBeforeExpire;
import io.locksmith.lockctl.demo.DemoReport;
import io.locksmith.lockctl.demo.DemoSettings;
import io.locksmith.lockctl.demo.OversellDemo;
import io.locksmith.lockctl.demo.RunResult;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DemoTest {

    @Test
    void naiveLockOversellsAndLocksmithDoesNot() {
        List<String> events = new CopyOnWriteArrayList<>();
        DemoReport report = OversellDemo.run(DemoSettings.defaults().withUri("mem://demo-test-api"), events::add);
        RunResult naive = report.naive();
        RunResult locksmith = report.locksmith();
        String table = report.toString() + "\n" + String.join("\n", events);

        assertTrue(naive.finalStock() < 0, "the naive run must oversell: " + table);
        assertTrue(naive.unitsSold() > naive.initialStock(), table);
        assertTrue(naive.unawareOverlaps() > 0, "two naive holders must have believed they held the lock: " + table);
        assertTrue(naive.staleWritesApplied() > 0, table);
        assertEquals(0, naive.lossesReported(), table);

        assertTrue(locksmith.safe(), "the Locksmith run must not oversell: " + table);
        assertTrue(locksmith.finalStock() >= 0, table);
        assertTrue(locksmith.unitsSold() <= locksmith.initialStock(), table);
        assertEquals(0, locksmith.staleWritesApplied(), table);
        assertEquals(0, locksmith.unawareOverlaps(), "a Locksmith holder is told before a second holder gets in: " + table);
        assertEquals(0, locksmith.foreignReleases(), table);
        assertTrue(locksmith.lossesReported() > 0, "the stalled holders must be told: " + table);
        assertTrue(locksmith.staleStatementsRejected() > 0, "the fence must refuse the paused holder's write: " + table);
        assertTrue(report.fencing());
    }

    @Test
    void aCrashBetweenSetnxAndExpireLeavesAnEternalNaiveLockAndNoLocksmithOne() {
        List<String> events = new CopyOnWriteArrayList<>();
        try (io.locksmith.LockClient crashed = io.locksmith.LockClient.open("mem://demo-crash");
             io.locksmith.LockClient survivor = io.locksmith.LockClient.open("mem://demo-crash")) {
            CrashBeforeExpire scene = CrashBeforeExpire.play(java.time.Duration.ofMillis(300), crashed, survivor,
                    events::add);
            assertTrue(scene.naiveEternal(), "SETNX without EXPIRE must leave an eternal lock: " + events);
            assertTrue(scene.locksmithFreed(), "the crashed holder's lock must free itself: " + events);
            assertTrue(scene.freedAfterMillis() >= 250, "not before the lease ran out: " + events);
        }
    }

    @Test
    void demoCommandPrintsTheTableAndExitsZero() {
        Run run = Run.lockctl("demo", "--uri", "mem://demo-test-cli", "--instances", "3", "--orders", "30", "--stock", "12");

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        assertTrue(run.out().contains("naive lock") && run.out().contains("Locksmith"), run.both());
        assertTrue(run.out().contains("final stock"), run.both());
        assertTrue(run.out().contains("stock never below zero"), run.both());
        assertTrue(run.out().contains("SETNX") && run.out().contains("naive: ETERNAL LOCK")
                && run.out().contains("Locksmith: freed after"), run.both());
    }

    @Test
    void demoRejectsBadSettingsAsUsageErrors() {
        Run run = Run.lockctl("demo", "--instances", "1");

        assertEquals(ExitCode.USAGE, run.exitCode(), run.both());
        assertTrue(run.err().startsWith("lockctl: instances must be at least 2, was 1"), run.both());
        assertTrue(run.err().contains("Usage: lockctl demo"), run.both());
    }
}
