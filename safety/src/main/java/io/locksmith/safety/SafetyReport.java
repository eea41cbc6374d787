package io.locksmith.safety;

import io.locksmith.tck.WorkloadReport;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a {@link SafetyRun} saw on one deployment: the contention workload's report (operations, overlaps,
 * stale writes, token order), every injected fault with its outcome, and the checks on stale holders.
 *
 * @param deployment               the deployment's name, e.g. {@code redis-sentinel}
 * @param description              what it is
 * @param duration                 how long the run lasted
 * @param workload                 the contention workload's report (in-JVM clients)
 * @param faults                   the faults, in order
 * @param staleHolderWrites        writes made by a paused or failed-over holder after another holder wrote
 * @param staleHolderWritesAccepted of those, accepted by the fenced register (must be 0)
 * @param staleHoldersNotTold      stale holders that still saw their lease as held when they wrote (must be 0
 *                                 for paused holders)
 * @param doubleGrants             times a second holder got the lock while an earlier holder still held it in
 *                                 its own view (a failover that lost a grant)
 */
public record SafetyReport(String deployment, String description, Duration duration, WorkloadReport workload,
                           List<FaultRecord> faults, long staleHolderWrites, long staleHolderWritesAccepted,
                           long staleHoldersNotTold, long doubleGrants) {

    /** No stale write accepted (workload or stale holders), tokens in order, every stale holder told. */
    public boolean isSafe() {
        return workload.staleWritesAccepted() == 0 && staleHolderWritesAccepted == 0
                && workload.tokenMonotonicityViolations() == 0 && staleHoldersNotTold == 0
                && faults.stream().noneMatch(FaultRecord::violation);
    }

    /** How many faults of each kind were injected. */
    public Map<Fault, Long> faultCounts() {
        Map<Fault, Long> counts = new EnumMap<>(Fault.class);
        for (FaultRecord record : faults) {
            counts.merge(record.fault(), 1L, Long::sum);
        }
        return counts;
    }

    /**
     * One cell of the results table for {@code fault}: how often it was injected, what followed, and how many
     * times it led to a violation; "-" if the deployment does not suffer it.
     */
    public String summaryOf(Fault fault) {
        List<FaultRecord> of = faults.stream().filter(r -> r.fault() == fault).toList();
        if (of.isEmpty()) {
            return "-";
        }
        long violations = of.stream().filter(FaultRecord::violation).count();
        String detail = switch (fault) {
            case HOLDER_KILL -> {
                long min = of.stream().mapToLong(FaultRecord::durationMillis).min().orElse(0);
                long max = of.stream().mapToLong(FaultRecord::durationMillis).max().orElse(0);
                yield "free again after " + min + "-" + max + " ms";
            }
            case HOLDER_PAUSE -> {
                long takenOver = of.stream().filter(r -> r.outcome().contains("another holder wrote")).count();
                yield takenOver + " taken over while frozen, all late writes "
                        + (violations == 0 ? "rejected, every holder told" : "NOT all rejected or told");
            }
            case FAILOVER -> doubleGrants + " double grant(s), " + (staleHolderWritesAccepted == 0
                    ? "fenced" : "NOT fenced");
            case CLIENT_PARTITION, NODE_KILL -> violations == 0 ? "no overlap" : violations + " fault(s) with overlap";
            case LOST_REPLY -> of.stream().filter(r -> r.outcome().startsWith("one reply")).count()
                    + " reply(ies) dropped, workload went on";
        };
        return of.size() + "x: " + detail + (violations == 0 ? "" : ", **" + violations + " violation(s)**");
    }

    /** The report as a markdown page. */
    public String toMarkdown(String command) {
        StringBuilder md = new StringBuilder();
        md.append("# Safety run: ").append(deployment).append("\n\n");
        md.append(description).append(". Run for ").append(duration.toSeconds()).append(" s with `").append(command)
                .append("`.\n\n");
        md.append("Verdict: **").append(isSafe() ? "SAFE" : "UNSAFE").append("** (no stale write accepted, tokens in"
                + " order, every stale holder told of its loss before its write).\n\n");
        md.append("| measure | value |\n|---|---|\n");
        row(md, "operations completed (acquire, 2 fenced writes, release)", workload.operations());
        row(md, "acquire time-outs", workload.acquireTimeouts());
        row(md, "operations failed (store errors during faults)", workload.errors());
        row(md, "faults injected", faults.size());
        row(md, "overlapping holdings (in-JVM holders, monotonic clock)", workload.overlaps());
        row(md, "double grants (a holder got the lock while an earlier one still held it)", doubleGrants);
        row(md, "stale writes accepted by the fenced register", workload.staleWritesAccepted() + staleHolderWritesAccepted);
        row(md, "stale writes rejected by the fenced register", workload.staleWritesRejected());
        row(md, "late writes of stale holders (paused, failed over)", staleHolderWrites);
        row(md, "stale holders that still believed they held the lock", staleHoldersNotTold);
        row(md, "fencing token order violations", workload.tokenMonotonicityViolations());
        row(md, "leases lost inside the critical section", workload.leasesLostInside());
        md.append("\n## Faults\n\n| # | at (ms) | fault | lasted (ms) | outcome |\n|---|---|---|---|---|\n");
        int i = 1;
        for (FaultRecord record : faults) {
            md.append("| ").append(i++).append(" | ").append(record.atMillis()).append(" | ")
                    .append(record.fault().description()).append(" | ").append(record.durationMillis()).append(" | ")
                    .append(record.violation() ? "**VIOLATION** " : "").append(record.outcome().replace("|", "/"))
                    .append(" |\n");
        }
        md.append("\n## Workload\n\n").append(workload).append("\n");
        return md.toString();
    }

    private static void row(StringBuilder md, String measure, long value) {
        md.append("| ").append(measure).append(" | ").append(value).append(" |\n");
    }

    /** The report as JSON. */
    public String toJson() {
        StringBuilder json = new StringBuilder("{\n");
        field(json, "deployment", quote(deployment));
        field(json, "description", quote(description));
        field(json, "durationMillis", duration.toMillis());
        field(json, "safe", isSafe());
        field(json, "operations", workload.operations());
        field(json, "acquireTimeouts", workload.acquireTimeouts());
        field(json, "errors", workload.errors());
        field(json, "overlaps", workload.overlaps());
        field(json, "doubleGrants", doubleGrants);
        field(json, "staleWritesAccepted", workload.staleWritesAccepted() + staleHolderWritesAccepted);
        field(json, "staleWritesRejected", workload.staleWritesRejected());
        field(json, "staleHolderWrites", staleHolderWrites);
        field(json, "staleHoldersNotTold", staleHoldersNotTold);
        field(json, "tokenMonotonicityViolations", workload.tokenMonotonicityViolations());
        field(json, "leasesLostInside", workload.leasesLostInside());
        json.append("  \"faults\": [\n");
        for (int i = 0; i < faults.size(); i++) {
            FaultRecord record = faults.get(i);
            json.append("    {\"fault\": ").append(quote(record.fault().name().toLowerCase(Locale.ROOT)))
                    .append(", \"atMillis\": ").append(record.atMillis())
                    .append(", \"durationMillis\": ").append(record.durationMillis())
                    .append(", \"violation\": ").append(record.violation())
                    .append(", \"outcome\": ").append(quote(record.outcome())).append("}")
                    .append(i + 1 < faults.size() ? ",\n" : "\n");
        }
        json.append("  ]\n}\n");
        return json.toString();
    }

    private static void field(StringBuilder json, String name, Object value) {
        json.append("  \"").append(name).append("\": ").append(value).append(",\n");
    }

    static String quote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format("\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
