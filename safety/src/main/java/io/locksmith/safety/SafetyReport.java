package io.locksmith.safety;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.locksmith.tck.WorkloadReport;

import java.io.UncheckedIOException;
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
 * @param locks                    the report of each contended lock, each judged by its own fenced register;
 *                                 {@code workload} is their sum (one element when the run contended for one lock)
 */
public record SafetyReport(String deployment, String description, Duration duration, WorkloadReport workload,
                           List<FaultRecord> faults, long staleHolderWrites, long staleHolderWritesAccepted,
                           long staleHoldersNotTold, long doubleGrants, List<WorkloadReport> locks) {

    public SafetyReport {
        locks = List.copyOf(locks);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The reports of several locks contended for at once, summed into one: operations, time-outs, errors and every
     * violation add up (each lock's register judged its own writes, so a violation on any one lock counts); the
     * elapsed time is the longest; the first error is the first lock's that had one.
     */
    static WorkloadReport sumOf(String lockNames, List<WorkloadReport> reports) {
        long operations = 0;
        long timeouts = 0;
        long errors = 0;
        long overlaps = 0;
        long staleAccepted = 0;
        long staleRejected = 0;
        long tokenViolations = 0;
        long lostInside = 0;
        int stuck = 0;
        Duration elapsed = Duration.ZERO;
        Throwable firstError = null;
        for (WorkloadReport one : reports) {
            operations += one.operations();
            timeouts += one.acquireTimeouts();
            errors += one.errors();
            overlaps += one.overlaps();
            staleAccepted += one.staleWritesAccepted();
            staleRejected += one.staleWritesRejected();
            tokenViolations += one.tokenMonotonicityViolations();
            lostInside += one.leasesLostInside();
            stuck += one.stuckThreads();
            elapsed = elapsed.compareTo(one.elapsed()) < 0 ? one.elapsed() : elapsed;
            firstError = firstError != null ? firstError : one.firstError();
        }
        WorkloadReport first = reports.get(0);
        return new WorkloadReport(lockNames, first.clients(), first.threadsPerClient(), operations, timeouts, errors,
                overlaps, staleAccepted, staleRejected, tokenViolations, lostInside, stuck, elapsed, firstError);
    }

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
        if (locks.size() > 1) {
            md.append("\n").append(locks.size()).append(" locks, each with its own fenced register checked on its own;"
                    + " the operations above are their sum:\n\n");
            for (WorkloadReport lock : locks) {
                md.append("- ").append(lock).append("\n");
            }
        }
        return md.toString();
    }

    private static void row(StringBuilder md, String measure, long value) {
        md.append("| ").append(measure).append(" | ").append(value).append(" |\n");
    }

    /** The report as JSON. */
    public String toJson() {
        ObjectNode json = JSON.createObjectNode();
        json.put("deployment", deployment);
        json.put("description", description);
        json.put("durationMillis", duration.toMillis());
        json.put("safe", isSafe());
        json.put("operations", workload.operations());
        json.put("acquireTimeouts", workload.acquireTimeouts());
        json.put("errors", workload.errors());
        json.put("overlaps", workload.overlaps());
        json.put("doubleGrants", doubleGrants);
        json.put("staleWritesAccepted", workload.staleWritesAccepted() + staleHolderWritesAccepted);
        json.put("staleWritesRejected", workload.staleWritesRejected());
        json.put("staleHolderWrites", staleHolderWrites);
        json.put("staleHoldersNotTold", staleHoldersNotTold);
        json.put("tokenMonotonicityViolations", workload.tokenMonotonicityViolations());
        json.put("leasesLostInside", workload.leasesLostInside());
        ArrayNode lockNodes = json.putArray("locks");
        for (WorkloadReport lock : locks) {
            lockNodes.addObject()
                    .put("lockName", lock.lockName())
                    .put("operations", lock.operations())
                    .put("overlaps", lock.overlaps())
                    .put("staleWritesAccepted", lock.staleWritesAccepted())
                    .put("staleWritesRejected", lock.staleWritesRejected())
                    .put("tokenMonotonicityViolations", lock.tokenMonotonicityViolations());
        }
        ArrayNode faultNodes = json.putArray("faults");
        for (FaultRecord record : faults) {
            faultNodes.addObject()
                    .put("fault", record.fault().name().toLowerCase(Locale.ROOT))
                    .put("atMillis", record.atMillis())
                    .put("durationMillis", record.durationMillis())
                    .put("violation", record.violation())
                    .put("outcome", record.outcome());
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot write the safety report of " + deployment + " as JSON", e);
        }
    }
}
