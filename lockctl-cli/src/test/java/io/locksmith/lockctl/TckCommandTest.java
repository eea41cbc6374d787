package io.locksmith.lockctl;

import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** lockctl tck end to end: the whole kit on mem://, a subset as JSON, and a broken custom backend. */
class TckCommandTest {

    @Test
    void theWholeKitPassesOnMemAndPrintsARuleTable() {
        String uri = "mem://tck-" + UUID.randomUUID();
        Run run = Run.lockctl("tck", "--uri", uri);

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        String[] lines = run.out().split("\n");
        assertTrue(lines[0].matches("RULE +STATUS +TEST +TIME +MESSAGE"), run.both());
        assertTrue(lines[1].matches("R1\\.1 +PASSED +required_r1_1_\\w+ +\\d+ ms"), run.both());
        assertTrue(run.out().contains("SKIPPED  optional_r7_5_"), "skips say why: " + run.both());
        assertTrue(run.out().contains("does NOT declare FAIR"), run.both());
        assertTrue(lines[lines.length - 1].matches("TCK PASSED on " + uri + ": \\d+ passed, 0 failed, \\d+ skipped"),
                run.both());
        assertTrue(!run.out().contains("Contention workload"), "the kit's own prints go to stderr: " + run.both());
    }

    @Test
    void aSubsetOfRulesAsJson() {
        Run run = Run.lockctl("tck", "--uri", "mem://tck-" + UUID.randomUUID(), "--rule", "R2.1,R5.1", "--json");

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        String json = run.out().strip();
        assertTrue(json.contains("\"passed\":true,\"counts\":{\"passed\":2,\"failed\":0,\"skipped\":0}"), json);
        assertTrue(json.contains("{\"rule\":\"R2.1\",\"test\":\"required_r2_1_releaseByNonOwnerMustNotDeleteTheNewHoldersLock\","
                + "\"status\":\"PASSED\",\"required\":true,"), json);
        assertTrue(json.contains("\"rule\":\"R5.1\""), json);
    }

    @Test
    void aCustomBackendOnTheClasspathThatDeletesOthersLocksFailsWithExitOne() {
        Run run = Run.lockctl("tck", "--uri", "brokenlock://", "--rule", "R2.1,R1.1");

        assertEquals(ExitCode.CHECK_FAILED, run.exitCode(), run.both());
        assertTrue(run.out().matches("(?s).*R2\\.1 +FAILED +required_r2_1_releaseByNonOwnerMustNotDeleteTheNewHoldersLock.*"),
                run.both());
        assertTrue(run.out().matches("(?s).*R1\\.1 +PASSED.*"), run.both());
        assertTrue(run.out().contains("TCK FAILED on brokenlock://: 1 passed, 1 failed, 0 skipped"), run.both());
        assertTrue(run.out().contains("1 required rule(s) failed"), run.both());
    }

    @Test
    void unknownRuleIsAUsageError() {
        Run run = Run.lockctl("tck", "--uri", "mem://", "--rule", "R99.9");

        assertEquals(ExitCode.USAGE, run.exitCode(), run.both());
        assertTrue(run.err().startsWith("lockctl: --rule: unknown rule 'R99.9'"), run.both());
    }

    @Test
    void unknownSchemeIsAUsageError() {
        Run run = Run.lockctl("tck", "--uri", "nosuch://h");

        assertEquals(ExitCode.USAGE, run.exitCode(), run.both());
        assertTrue(run.err().startsWith("lockctl: unknown lock store scheme 'nosuch'"), run.both());
    }
}
