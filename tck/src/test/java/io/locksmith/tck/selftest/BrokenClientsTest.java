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
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.locksmith.tck.TckRule.R1_2;
import static io.locksmith.tck.TckRule.R10_1;
import static io.locksmith.tck.TckRule.R10_2;
import static io.locksmith.tck.TckRule.R10_3;
import static io.locksmith.tck.TckRule.R10_4;
import static io.locksmith.tck.TckRule.R2_3;
import static io.locksmith.tck.TckRule.R4_1;
import static io.locksmith.tck.TckRule.R4_4;
import static io.locksmith.tck.TckRule.R4_5;
import static io.locksmith.tck.TckRule.R4_6;
import static io.locksmith.tck.TckRule.R7_11;
import static io.locksmith.tck.TckRule.R11_1;
import static io.locksmith.tck.TckRule.R11_4;
import static io.locksmith.tck.TckRule.R11_7;
import static io.locksmith.tck.TckRule.R12_1;
import static io.locksmith.tck.TckRule.R12_2;
import static io.locksmith.tck.TckRule.R12_4;
import static io.locksmith.tck.TckRule.R12_5;
import static io.locksmith.tck.TckRule.R13_1;
import static io.locksmith.tck.TckRule.R13_5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The rules of the shared client (R4.4-R4.6, R7.11, R10) are as strong as the client bugs they catch: each broken
 * client must fail the rule that names its bug, with a message naming the rule, while rules its bug does not touch
 * still pass (so the failure is the bug's, not a crash of the decorator). The rules run through {@link TckRunner}, in
 * the kits of {@link LockTck} (ReentryKit, HotLockKit, AsyncKit) and of the primitives (SemaphoreKit, ReadWriteKit,
 * ElectionKit: R11.4, R11.7, R12.4, R12.5, R13.5), over {@link BrokenClientKits}.
 */
class BrokenClientsTest {

    static Stream<Arguments> brokenClients() {
        return Stream.of(
                arguments(BrokenClientKits.IgnoresHandOffTck.class, List.of(R4_4), List.of(R4_1, R4_5, R4_6)),
                arguments(BrokenClientKits.IgnoresNonReentrantOptionTck.class, List.of(R4_5), List.of(R4_1, R4_4, R4_6)),
                arguments(BrokenClientKits.BindsAsyncLeaseToItsCallerTck.class, List.of(R4_6), List.of(R4_1, R4_4, R4_5)),
                arguments(BrokenClientKits.AsyncReentryByClientTck.class, List.of(R4_6), List.of(R4_1, R10_2, R10_4)),
                // R10.1 too, but only when the pool gives a second acquire to the thread that holds the first lease:
                // under load every acquire got a thread of its own and R10.1 passed (CI, 2 Dec). R4.6 hands it one.
                arguments(BrokenClientKits.LeaseBoundToAPoolThreadTck.class, List.of(R4_6), List.of(R4_1, R10_2)),
                arguments(BrokenClientKits.SingleFlightAsyncTck.class, List.of(R10_1), List.of(R10_2, R10_4)),
                arguments(BrokenClientKits.AsyncKeyedByClientTck.class, List.of(R10_1), List.of(R1_2, R4_1)),
                arguments(BrokenClientKits.AsyncWaitInTheWrongUnitTck.class, List.of(R10_2), List.of(R10_1, R10_3, R10_4)),
                arguments(BrokenClientKits.CancelNotPassedToThePoolTck.class, List.of(R10_3), List.of(R10_1, R10_2, R10_4)),
                arguments(BrokenClientKits.AsyncRetriesAtTheBoundTck.class, List.of(R10_4), List.of(R10_2, R4_6)),
                arguments(BrokenClientKits.PollingClientOverASerialStoreTck.class, List.of(R7_11), List.of(R1_2, R2_3)),
                arguments(BrokenClientKits.LenientPermitsTck.class, List.of(R11_7), List.of(R11_1)),
                arguments(BrokenClientKits.ReleasesTheLatestPermitTck.class, List.of(R11_4), List.of(R11_1)),
                arguments(BrokenClientKits.DowngradeWithAGapTck.class, List.of(R12_4), List.of(R12_2, R12_5)),
                arguments(BrokenClientKits.SilentUpgradeTck.class, List.of(R12_5), List.of(R12_1, R12_4)),
                arguments(BrokenClientKits.ObserverSkipsNoLeaderTck.class, List.of(R13_5), List.of(R13_1)));
    }

    @ParameterizedTest(name = "{0} fails {1}")
    @MethodSource("brokenClients")
    void aBrokenClientFailsTheRuleOfItsBug(Class<? extends LockTck> kit, List<TckRule> expectedFailures,
                                          List<TckRule> untouched) {
        List<TckRule> selected = new ArrayList<>(expectedFailures);
        selected.addAll(untouched);
        TckReport report = run(kit, selected);
        for (TckRule rule : expectedFailures) {
            TckReport.RuleResult result = report.result(rule.id()).orElseThrow(
                    () -> new AssertionError(rule.id() + " did not run: " + report));
            assertEquals(TckReport.Status.FAILED, result.status(), kit.getSimpleName() + " should fail " + rule.id()
                    + ": " + report);
            assertTrue(result.message().startsWith("Rule " + rule.id() + " (" + rule.title() + ") violated"),
                    "the failure should name the rule: " + result.message());
        }
        for (TckRule rule : untouched) {
            assertEquals(TckReport.Status.PASSED, report.statusOf(rule.id()).orElse(null),
                    kit.getSimpleName() + " should still pass " + rule.id() + ": " + report);
        }
        assertFalse(report.passed(), "a report with failures must not pass");
    }

    @Test
    void theForwardingDecoratorAlonePassesTheClientRules() {
        List<TckRule> rules = List.of(R4_1, R4_4, R4_5, R4_6, R10_1, R10_2, R10_3, R10_4);
        TckReport report = run(BrokenClientKits.ForwardingClientTck.class, rules);
        for (TckRule rule : rules) {
            assertEquals(TckReport.Status.PASSED, report.statusOf(rule.id()).orElse(null), rule.id() + ": " + report);
        }
    }

    @Test
    void theSharedClientKeepsAHotLockOnTheStoreWhereAPollingClientCollapses() {
        TckReport report = run(BrokenClientKits.CorrectClientOverASerialStoreTck.class, List.of(R7_11));
        assertEquals(TckReport.Status.PASSED, report.statusOf(R7_11.id()).orElse(null), report::toString);
    }

    private static TckReport run(Class<? extends LockTck> kit, List<TckRule> rules) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        TckReport report = TckRunner.run(kit, Map.of(), new PrintStream(log, true, StandardCharsets.UTF_8),
                rules.stream().map(BrokenClientsTest::testMethodOf).toList());
        System.out.println(log.toString(StandardCharsets.UTF_8));
        assertEquals(rules.size(), report.results().size(), "every selected rule, and nothing else, must run: " + report);
        return report;
    }

    /** The test method of {@code rule}: a method of {@link LockTck}'s kits. */
    static String testMethodOf(TckRule rule) {
        return Stream.of(BrokenClientKits.MemClientTck.class.getMethods())
                .map(Method::getName)
                .filter(name -> name.startsWith(rule.methodPrefix()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no test method for " + rule.id()));
    }
}
