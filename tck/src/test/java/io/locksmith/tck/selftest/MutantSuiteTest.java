package io.locksmith.tck.selftest;

import io.locksmith.tck.TckReport;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckRunner;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kit's power, measured: each {@link Mutant} (one realistic backend bug over {@code mem://}) must fail the
 * rules that name its bug; the controls (a decorator that changes nothing, one that only adds latency) must pass
 * the whole kit ({@link MutantControlsTest}, a class of its own so that the two whole-kit runs, 40 s each, go to
 * another test JVM than the mutants). {@code scripts/tck-mutants.sh} repeats both ten times: every mutant must be
 * caught in every run.
 */
class MutantSuiteTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("mutants")
    void everyMutantIsCaughtByItsRules(Mutant mutant) {
        runAndCheck(mutant);
    }

    static Stream<Mutant> mutants() {
        return Arrays.stream(Mutant.values()).filter(mutant -> !mutant.isControl());
    }

    /** Runs the rules that must catch {@code mutant} (the whole kit for a control) and checks the report. */
    static void runAndCheck(Mutant mutant) {
        // -Dlocksmith.tck.mutants=A,B reruns some of them (a failure's mutant, say); the default is all.
        String only = System.getProperty("locksmith.tck.mutants", "");
        org.junit.jupiter.api.Assumptions.assumeTrue(only.isBlank() || Arrays.asList(only.split(",")).contains(mutant.name()),
                () -> "not selected by -Dlocksmith.tck.mutants=" + only);
        MutantTck.use(mutant);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        List<String> methods = TckRunner.testMethods(MutantTck.class, mutant.caughtBy());
        TckReport report = TckRunner.run(MutantTck.class, Map.of(), new PrintStream(log, true, StandardCharsets.UTF_8),
                methods);
        System.out.println("mutant " + mutant + ":\n" + log.toString(StandardCharsets.UTF_8));
        if (mutant.isControl()) {
            assertTrue(report.passed(), "the control " + mutant + " must pass the whole kit: " + report);
            assertEquals(0, report.count(TckReport.Status.FAILED), report::toString);
            return;
        }
        for (TckRule rule : mutant.caughtBy()) {
            TckReport.RuleResult result = report.result(rule.id()).orElseThrow(
                    () -> new AssertionError(rule.id() + " did not run against " + mutant + ": " + report));
            assertEquals(TckReport.Status.FAILED, result.status(), "the kit let the mutant " + mutant + " pass "
                    + rule.id() + " (" + rule.title() + "): " + report);
            assertTrue(result.message().startsWith("Rule " + rule.id() + " (" + rule.title() + ") violated"),
                    "the failure should name the rule: " + result.message());
        }
    }

    @org.junit.jupiter.api.Test
    void theSuiteHasFortyMutantsAndOneForEveryRuleGroup() {
        List<Mutant> mutants = Arrays.stream(Mutant.values()).filter(m -> !m.isControl()).toList();
        assertTrue(mutants.size() >= 40, "only " + mutants.size() + " mutants");
        Set<String> groups = mutants.stream().flatMap(m -> m.caughtBy().stream())
                .map(rule -> rule.id().substring(0, rule.id().indexOf('.'))).collect(Collectors.toSet());
        for (int group = 1; group <= 9; group++) {
            assertTrue(groups.contains("R" + group), "no mutant aimed at a rule of R" + group + ": " + groups);
        }
        assertTrue(EnumSet.allOf(Mutant.class).stream().filter(Mutant::isControl).count() >= 2, "two controls");
    }
}
