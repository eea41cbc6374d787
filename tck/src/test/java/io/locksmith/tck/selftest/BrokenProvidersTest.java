package io.locksmith.tck.selftest;

import io.locksmith.tck.LockTck;
import io.locksmith.tck.TckReport;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * A kit that was never seen to fail proves nothing: each deliberately broken store must fail the rule that
 * names its defect, with a message naming the rule, while rules it does not touch still pass.
 */
class BrokenProvidersTest {

    /** Quick rules no flaw here touches: they must keep passing, so a failure is the flaw's and not a crash. */
    private static final List<TckRule> UNTOUCHED = List.of(TckRule.R1_2, TckRule.R2_3, TckRule.R4_1, TckRule.R8_3);

    static Stream<Arguments> brokenStores() {
        return Stream.of(
                arguments(ToyKits.ReleaseWithoutOwnerCheckTck.class, List.of(TckRule.R2_1)),
                arguments(ToyKits.AcquireWithoutTtlTck.class, List.of(TckRule.R3_1)),
                arguments(ToyKits.CheckThenSetTck.class, List.of(TckRule.R1_3)),
                arguments(ToyKits.TokenRestartsTck.class, List.of(TckRule.R5_1, TckRule.R5_2)),
                arguments(ToyKits.RenewAlwaysTrueTck.class, List.of(TckRule.R6_4)),
                arguments(ToyKits.RenewWithoutOwnerCheckTck.class, List.of(TckRule.R2_2)),
                arguments(ToyKits.CancelLeavesQueueEntryTck.class, List.of(TckRule.R7_1, TckRule.R7_2)),
                arguments(ToyKits.EarlyExpiryTck.class, List.of(TckRule.R3_2)),
                arguments(ToyKits.SilentNotificationTck.class, List.of(TckRule.R7_4)),
                // R2.6: each leak of an access-controlled store, and a hook whose control misses the lock.
                arguments(ToyKits.ForeignDeleteToyTck.class, List.of(TckRule.R2_6)),
                arguments(ToyKits.ForeignExtendToyTck.class, List.of(TckRule.R2_6)),
                arguments(ToyKits.ForeignTakeOverToyTck.class, List.of(TckRule.R2_6)),
                arguments(ToyKits.ForeignReadToyTck.class, List.of(TckRule.R2_6)),
                arguments(ToyKits.AnonymousLetInToyTck.class, List.of(TckRule.R2_6)),
                arguments(ToyKits.HookMissesTheLockToyTck.class, List.of(TckRule.R2_6)));
    }

    @ParameterizedTest(name = "{0} fails {1}")
    @MethodSource("brokenStores")
    void aBrokenStoreFailsTheRuleOfItsDefect(Class<? extends LockTck> kit, List<TckRule> expectedFailures) {
        List<TckRule> selected = new ArrayList<>(expectedFailures);
        selected.addAll(UNTOUCHED);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        TckReport report = TckRunner.run(kit, Map.of(), new PrintStream(log, true, StandardCharsets.UTF_8),
                selected.stream().map(BrokenProvidersTest::testMethodOf).toList());
        System.out.println(log.toString(StandardCharsets.UTF_8));
        for (TckRule rule : expectedFailures) {
            TckReport.RuleResult result = report.result(rule.id()).orElseThrow(
                    () -> new AssertionError(rule.id() + " did not run: " + report));
            assertEquals(TckReport.Status.FAILED, result.status(), kit.getSimpleName() + " should fail " + rule.id()
                    + ": " + report);
            assertTrue(result.message().startsWith("Rule " + rule.id() + " (" + rule.title() + ") violated"),
                    "the failure should name the rule: " + result.message());
        }
        for (TckRule rule : UNTOUCHED) {
            assertEquals(TckReport.Status.PASSED, report.statusOf(rule.id()).orElse(null),
                    kit.getSimpleName() + " should still pass " + rule.id() + ": " + report);
        }
        assertTrue(!report.passed(), "a report with failures must not pass");
    }

    @Test
    void theCorrectToyStorePassesEveryRequiredRule() {
        TckReport report = TckRunner.run(ToyKits.CorrectToyTck.class, Map.of(), System.out, List.of());
        assertTrue(report.passed(), report::toString);
        for (TckRule rule : TckRule.values()) {
            if (rule.id().matches("R1[123]\\..*")) {
                continue; // the primitives' rules: PrimitivesTck's, not the lock kit's
            }
            TckReport.Status expected = rule.capability().map(c -> c.name().equals("FENCING")
                    || c.name().equals("RELEASE_NOTIFICATION")).orElse(true)
                    ? TckReport.Status.PASSED : TckReport.Status.SKIPPED;
            assertEquals(expected, report.statusOf(rule.id()).orElse(null), rule.id() + ": " + report);
        }
    }

    @Test
    void aCorrectSessionBoundStoreWithoutTtlPassesEveryRequiredRule() {
        TckReport report = TckRunner.run(ToyKits.CorrectSessionBoundToyTck.class, Map.of(), System.out, List.of());
        assertTrue(report.passed(), report::toString);
        assertEquals(0, report.count(TckReport.Status.FAILED), report::toString);
    }

    @Test
    void theCorrectFairToyStorePassesTheQueueRules() {
        List<TckRule> rules = List.of(TckRule.R7_1, TckRule.R7_2, TckRule.R7_3, TckRule.R7_5, TckRule.R7_6, TckRule.R7_12,
                TckRule.R7_13, TckRule.R7_14, TckRule.R1_1, TckRule.R1_3);
        TckReport report = TckRunner.run(ToyKits.CorrectFairToyTck.class, Map.of(), System.out,
                rules.stream().map(BrokenProvidersTest::testMethodOf).toList());
        for (TckRule rule : rules) {
            assertEquals(TckReport.Status.PASSED, report.statusOf(rule.id()).orElse(null), rule.id() + ": " + report);
        }
    }

    @Test
    void theCorrectAccessControlledToyStorePassesR2_6() {
        List<TckRule> rules = List.of(TckRule.R2_6, TckRule.R8_11, TckRule.R2_1);
        TckReport report = TckRunner.run(ToyKits.CorrectAccessControlledToyTck.class, Map.of(), System.out,
                rules.stream().map(BrokenProvidersTest::testMethodOf).toList());
        for (TckRule rule : rules) {
            assertEquals(TckReport.Status.PASSED, report.statusOf(rule.id()).orElse(null), rule.id() + ": " + report);
        }
    }

    @Test
    void skippedOptionalRulesSayWhy() {
        TckReport report = TckRunner.run(ToyKits.CorrectToyTck.class, Map.of(), System.out,
                List.of(testMethodOf(TckRule.R7_5)));
        TckReport.RuleResult result = report.result("R7.5").orElseThrow();
        assertEquals(TckReport.Status.SKIPPED, result.status());
        assertTrue(result.message().contains("Skipped because the provider does NOT declare FAIR: rule R7.5"),
                result.message());
        assertTrue(!report.passed(), "a run where nothing passed must not be green");
    }

    static String testMethodOf(TckRule rule) {
        return TckRunner.testMethods(LockTck.class, List.of(rule)).get(0);
    }
}
