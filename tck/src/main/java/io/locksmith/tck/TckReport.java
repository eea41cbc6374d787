package io.locksmith.tck;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The outcome of a {@link TckRunner} run: one result per rule test. {@link #passed()} is true only if no rule
 * failed and at least one ran, so an empty or misconfigured run is never green.
 */
public final class TckReport {

    /** The outcome of one rule. */
    public enum Status { PASSED, FAILED, SKIPPED }

    /**
     * One rule's result.
     *
     * @param ruleId    e.g. {@code R2.1}; {@code "-"} for a failure outside any rule (the kit could not start)
     * @param testName  the test method, e.g. {@code required_r2_1_releaseByNonOwnerMustNotDeleteTheNewHoldersLock}
     * @param status    passed, failed or skipped
     * @param message   why it failed or was skipped; empty when it passed
     * @param duration  how long it ran
     */
    public record RuleResult(String ruleId, String testName, Status status, String message, Duration duration) {
        @Override
        public String toString() {
            return String.format("%-5s %-7s %s (%d ms)%s", ruleId, status, testName, duration.toMillis(),
                    message.isEmpty() ? "" : ": " + message);
        }
    }

    private final String target;
    private final List<RuleResult> results;

    TckReport(String target, List<RuleResult> results) {
        this.target = target;
        this.results = List.copyOf(results);
    }

    /** What was tested: the URI or the kit class. */
    public String target() {
        return target;
    }

    /** Every result, in the order the rules finished. */
    public List<RuleResult> results() {
        return results;
    }

    /** True if no rule failed and at least one passed. */
    public boolean passed() {
        return count(Status.FAILED) == 0 && count(Status.PASSED) > 0;
    }

    /** The failed results. */
    public List<RuleResult> failures() {
        return results.stream().filter(r -> r.status() == Status.FAILED).collect(Collectors.toList());
    }

    /** The result of a rule, by id ({@code R2.1}). */
    public Optional<RuleResult> result(String ruleId) {
        return results.stream().filter(r -> r.ruleId().equalsIgnoreCase(ruleId)).findFirst();
    }

    /** The status of a rule, or empty if it did not run. */
    public Optional<Status> statusOf(String ruleId) {
        return result(ruleId).map(RuleResult::status);
    }

    /** How many results have this status. */
    public long count(Status status) {
        return results.stream().filter(r -> r.status() == status).count();
    }

    /** One line: the verdict and the counts. */
    public String summary() {
        return "TCK " + (passed() ? "PASSED" : "FAILED") + " on " + target + ": " + count(Status.PASSED) + " passed, "
                + count(Status.FAILED) + " failed, " + count(Status.SKIPPED) + " skipped";
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(summary());
        for (RuleResult result : results) {
            text.append(System.lineSeparator()).append("  ").append(result);
        }
        return text.toString();
    }
}
