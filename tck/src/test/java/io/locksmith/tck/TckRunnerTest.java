package io.locksmith.tck;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The runner behind {@code lockctl tck --uri U}: reports per rule, and is never green by doing nothing. */
class TckRunnerTest {

    private static final List<String> QUICK = List.of("required_r1_1_onlyOneHolderAtATime",
            "required_r6_4_lossIsSignalledWhenTheStoreSideLockIsGone", "optional_r7_5_fairStoresServeWaitersInArrivalOrder");

    @Test
    void runsTheKitAgainstAUriAndReportsEachRule() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String uri = "mem://runner-" + UUID.randomUUID();
        TckReport report = TckRunner.run(UriLockTck.class, Map.of(UriLockTck.URI_PARAMETER, uri),
                new PrintStream(out, true, StandardCharsets.UTF_8), QUICK);
        assertTrue(report.passed(), report::toString);
        assertEquals(TckReport.Status.PASSED, report.statusOf("R1.1").orElseThrow());
        assertEquals(TckReport.Status.PASSED, report.statusOf("R6.4").orElseThrow(), "mem:// URIs support the expiry hook");
        assertEquals(TckReport.Status.SKIPPED, report.statusOf("R7.5").orElseThrow());
        String progress = out.toString(StandardCharsets.UTF_8);
        assertTrue(progress.contains("R1.1  PASSED  required_r1_1_onlyOneHolderAtATime"), progress);
        assertTrue(progress.contains("TCK PASSED"), progress);
    }

    @Test
    void runsTheRulesOfEveryKitByTheirMethodNames() {
        String uri = "mem://runner-nested-" + UUID.randomUUID();
        TckReport report = TckRunner.run(UriLockTck.class, Map.of(UriLockTck.URI_PARAMETER, uri), System.out,
                List.of("required_r1_1_onlyOneHolderAtATime", "required_r4_5_aNonReentrantLockNeverReenters",
                        "required_r10_4_anAsyncWaiterGetsTheLockWhenItIsReleased"));
        assertEquals(3, report.results().size(), report::toString);
        assertEquals(TckReport.Status.PASSED, report.statusOf("R4.5").orElseThrow(), report::toString);
        assertEquals(TckReport.Status.PASSED, report.statusOf("R10.4").orElseThrow(), report::toString);
    }

    @Test
    void theWholeKitPassesThroughTheUriRunner() {
        TckReport report = TckRunner.run("mem://runner-all-" + UUID.randomUUID(), System.out);
        assertTrue(report.passed(), report::toString);
        assertEquals(TckRule.values().length, report.results().size(), report::toString);
    }

    @Test
    void withoutAUriEveryRuleFailsWithAConfigurationError() {
        TckReport report = TckRunner.run(UriLockTck.class, Map.of(), System.out, QUICK.subList(0, 1));
        assertFalse(report.passed(), "a run without a URI must not be green: " + report);
        TckReport.RuleResult result = report.result("R1.1").orElseThrow();
        assertEquals(TckReport.Status.FAILED, result.status());
        assertTrue(result.message().contains(UriLockTck.URI_PARAMETER), result.message());
    }

    @Test
    void anUnknownSchemeFailsEveryRuleWithTheSchemeNamed() {
        TckReport report = TckRunner.run(UriLockTck.class, Map.of(UriLockTck.URI_PARAMETER, "nosuchstore://h"),
                System.out, QUICK.subList(0, 1));
        assertFalse(report.passed());
        assertTrue(report.result("R1.1").orElseThrow().message().contains("nosuchstore"), report::toString);
    }

    @Test
    void theExpectedCapabilitiesAreCheckedWhenGiven() {
        String uri = "mem://runner-capabilities-" + UUID.randomUUID();
        List<String> r8_11 = List.of("required_r8_11_theStoreDeclaresTheCapabilitiesItsUserExpects");
        TckReport declared = TckRunner.run(UriLockTck.class, Map.of(UriLockTck.URI_PARAMETER, uri,
                UriLockTck.CAPABILITIES_PARAMETER, "fencing, RELEASE_NOTIFICATION"), System.out, r8_11);
        assertEquals(TckReport.Status.PASSED, declared.statusOf("R8.11").orElseThrow(), declared::toString);
        TckReport notDeclared = TckRunner.run(UriLockTck.class, Map.of(UriLockTck.URI_PARAMETER, uri,
                UriLockTck.CAPABILITIES_PARAMETER, "FENCING,FAIR"), System.out, r8_11);
        TckReport.RuleResult result = notDeclared.result("R8.11").orElseThrow();
        assertEquals(TckReport.Status.FAILED, result.status(), notDeclared::toString);
        assertTrue(result.message().contains("[FAIR] is not declared"), result.message());
        TckReport unstated = TckRunner.run(UriLockTck.class, Map.of(UriLockTck.URI_PARAMETER, uri), System.out, r8_11);
        assertTrue(unstated.result("R8.11").orElseThrow().message().contains("expectedCapabilities()"), unstated::toString);
        TckReport typo = TckRunner.run(UriLockTck.class, Map.of(UriLockTck.URI_PARAMETER, uri,
                UriLockTck.CAPABILITIES_PARAMETER, "FENCE"), System.out, r8_11);
        assertEquals(TckReport.Status.FAILED, typo.statusOf("R8.11").orElseThrow());
        assertTrue(typo.result("R8.11").orElseThrow().message().contains("'FENCE', which is not a capability"),
                typo::toString);
    }

    @Test
    void aReportWithNothingRunIsNotGreen() {
        TckReport empty = new TckReport("nothing", List.of());
        assertFalse(empty.passed());
        assertTrue(empty.summary().startsWith("TCK FAILED"), empty.summary());
    }

    @Test
    void aBadScaleIsAConfigurationError() {
        TckReport report = TckRunner.run(UriLockTck.class, Map.of(UriLockTck.URI_PARAMETER, "mem://",
                UriLockTck.SCALE_PARAMETER, "fast"), System.out, QUICK.subList(0, 1));
        assertFalse(report.passed());
        assertTrue(report.result("R1.1").orElseThrow().message().contains(UriLockTck.SCALE_PARAMETER), report::toString);
    }
}
