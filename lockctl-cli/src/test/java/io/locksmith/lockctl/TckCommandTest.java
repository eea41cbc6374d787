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
        assertTrue(lines[lines.length - 1].matches("TCK PASSED on " + uri + " \\(single node\\): \\d+ passed, 0 failed,"
                + " \\d+ skipped"), run.both());
        assertTrue(lines[lines.length - 2].startsWith("Deployment: single node (in this process, no network). Its"
                + " fault rules (R7.7, R8.10, R9.1, R9.2, R9.3, R9.4, R9.5, R9.8, R9.16, R9.17, R9.18, R9.19) are not run"
                + " by lockctl tck"), run.both());
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
        assertTrue(run.out().contains("TCK FAILED on brokenlock:// (single node): 1 passed, 1 failed, 0 skipped"), run.both());
        assertTrue(run.out().contains("1 required rule(s) failed"), run.both());
    }

    @Test
    void aReplicatedDeploymentIsToldWhichFaultRulesItStillNeeds() {
        Run run = Run.lockctl("tck", "--uri", "mem://tck-" + UUID.randomUUID(), "--rule", "R2.1", "--shape", "replicated:3");

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        assertTrue(run.out().contains("(replicated, 3 members): 1 passed, 0 failed, 0 skipped"), run.both());
        assertTrue(run.out().contains("Deployment: replicated, 3 members (as --shape says). Its fault rules (R7.7, R8.10,"
                + " R9.1, R9.2, R9.3, R9.4, R9.5, R9.6, R9.8, R9.9, R9.10, R9.16, R9.17, R9.18)"), run.both());
        assertTrue(run.out().contains("Until R9.6, R9.9 and R9.10 (a member killed, cut from its peers, frozen) pass"
                + " there"), run.both());

        Run json = Run.lockctl("tck", "--uri", "mem://tck-" + UUID.randomUUID(), "--rule", "R2.1", "--shape",
                "replicated:5", "--json");
        assertTrue(json.out().contains("\"deployment\":{\"shape\":\"replicated\",\"members\":5,\"source\":\"as --shape"
                + " says\",\"faultRulesNotRun\":[\"R7.7\","), json.both());
    }

    @Test
    void theShapeComesFromTheUrisAddresses() {
        assertEquals("replicated, 3 members", TckCommand.shapeOf("etcd://a:2379,b:2379,c:2379", null).toString());
        assertEquals("single node", TckCommand.shapeOf("redis://a:6379", null).toString());
        assertTrue(TckCommand.shapeOf("redis-sentinel://s:26379/mymaster", null).shape().isReplicated());
        assertEquals("replicated, 5 members", TckCommand.shapeOf("redlock://a,b,c,d,e", null).toString());
    }

    @Test
    void aBadShapeIsAUsageError() {
        Run run = Run.lockctl("tck", "--uri", "mem://", "--shape", "replicated:1");

        assertEquals(ExitCode.USAGE, run.exitCode(), run.both());
        assertTrue(run.err().startsWith("lockctl: --shape must be 'single' or 'replicated:N'"), run.both());
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
