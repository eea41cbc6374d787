package io.locksmith.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Turns the results of a run into the Markdown tables (absolute figures and ratios to the baseline of the
 * same store and scenario, measured in the same run) and the JSON file.
 *
 * <p>With several runs ({@link #of(List, Map)}), every figure is the median of the runs with its range (lowest to
 * highest), and every ratio is taken within each run (Locksmith and the raw client measured on the same servers,
 * a few seconds apart) before the median of those ratios is taken: the machine's load changes between runs, so
 * dividing the medians of different runs would mix loads.
 */
final class Report {

    /** A column: a metric, its header, and whether a ratio to the baseline is shown after it. */
    private record Column(String metric, String header, boolean ratio) {
    }

    private static final Map<Scenario, List<Column>> COLUMNS = Map.of(
            Scenario.UNCONTENDED, List.of(new Column("p50_us", "p50 µs", true), new Column("p99_us", "p99 µs", true),
                    new Column("ops_per_s", "ops/s", true)),
            Scenario.CONTENDED, List.of(new Column("acquisitions_per_s", "acquisitions/s", true),
                    new Column("handoff_p50_us", "handoff p50 µs", true),
                    new Column("handoff_p99_us", "handoff p99 µs", true),
                    new Column("handoffs_to_waiters_pct", "to a waiter %", false),
                    new Column("to_another_thread_pct", "to another thread %", false)),
            Scenario.MANY_NAMES, List.of(new Column("ops_per_s", "ops/s", true), new Column("p50_us", "p50 µs", true),
                    new Column("p99_us", "p99 µs", true)),
            Scenario.RENEWAL, List.of(new Column("store_requests_per_s", "store requests/s", true),
                    new Column("requests_per_round", "requests per lease/3", false),
                    new Column("client_cpu_pct", "client CPU %", true), new Column("heap_mb", "heap MB", true),
                    new Column("heap_bytes_per_lock", "heap bytes per held lock", false),
                    new Column("locks_lost", "locks lost", false)),
            Scenario.ASYNC_OVERHEAD, List.of(new Column("p50_us", "uncontended p50 µs", true),
                    new Column("p99_us", "uncontended p99 µs", true), new Column("ops_per_s", "uncontended ops/s", true),
                    new Column("acquisitions_per_s", "contended acquisitions/s", true),
                    new Column("handoff_p50_us", "contended handoff p50 µs", true),
                    new Column("timeouts", "contended time-outs", false)),
            Scenario.RW_READ_HEAVY, List.of(new Column("reads_per_s", "reads/s", true),
                    new Column("writes_per_s", "writes/s", true),
                    new Column("read_wait_p50_us", "read wait p50 µs", true),
                    new Column("read_wait_p99_us", "read wait p99 µs", true),
                    new Column("write_wait_p50_us", "write wait p50 µs", true),
                    new Column("write_wait_p99_us", "write wait p99 µs", true),
                    new Column("timeouts", "time-outs", false), new Column("exclusion_violations", "overlaps", false)),
            Scenario.SEMAPHORE, List.of(new Column("acquisitions_per_s", "acquisitions/s", true),
                    new Column("wait_p50_us", "wait p50 µs", true), new Column("wait_p99_us", "wait p99 µs", true),
                    new Column("most_held", "most held at once", false), new Column("timeouts", "time-outs", false)),
            Scenario.LEADER_FAILOVER, List.of(new Column("failover_p50_ms", "closed: failover p50 ms", true),
                    new Column("failover_max_ms", "closed: longest ms", true),
                    new Column("close_p50_ms", "the close call p50 ms", false),
                    new Column("crash_p50_ms", "cut off: failover p50 ms", true),
                    new Column("crash_max_ms", "cut off: longest ms", true),
                    new Column("unprompted_elections", "unprompted elections", false)));

    /** Keeps the four decimals of {@link #jsonNumber} as they are (100.0000, not 1E+2). */
    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);

    private final List<Result> results;
    private final Map<String, String> environment;
    /** One report per run when there were several, else empty. */
    private final List<Report> runs;

    /** The environment entries that say how long a contended holder holds and thinks (the contended scenario's text). */
    static final String CONTENDED_HOLD = "contended hold";
    static final String CONTENDED_THINK = "contended think time (random, up to)";
    /** The environment entries of the hot-lock scenario (its description and table headings). */
    static final String HOT_WAIT = "hot lock: each acquire's bound";
    static final String HOT_HOLD = "hot lock: hold";
    static final String HOT_WINDOW = "hot lock: measured window";
    static final String HOT_COUNTS = "hot lock: waiter counts";
    /** The environment entries that describe the primitives scenarios of a run (issue 32), when they ran. */
    static final String RW_DESCRIPTION = "read-heavy read-write lock";
    static final String SEMAPHORE_DESCRIPTION = "semaphore";
    static final String FAILOVER_DESCRIPTION = "leader failover";
    /** Figures of the primitives tables that are counts, shown whole. */
    private static final java.util.Set<String> WHOLE_COUNTS = java.util.Set.of("timeouts", "exclusion_violations",
            "most_held", "unprompted_elections");
    private static final Map<Scenario, String> DESCRIPTIONS = Map.of(Scenario.RW_READ_HEAVY, RW_DESCRIPTION,
            Scenario.SEMAPHORE, SEMAPHORE_DESCRIPTION, Scenario.LEADER_FAILOVER, FAILOVER_DESCRIPTION);

    Report(List<Result> results, Map<String, String> environment) {
        this(results, environment, List.of());
    }

    private Report(List<Result> results, Map<String, String> environment, List<Report> runs) {
        this.results = List.copyOf(results);
        this.environment = environment;
        this.runs = runs;
    }

    /** The report of one or more runs of the same subjects: medians of the runs, with ranges. */
    static Report of(List<List<Result>> runResults, Map<String, String> environment) {
        if (runResults.size() == 1) {
            return new Report(runResults.get(0), environment);
        }
        List<Report> runs = runResults.stream().map(r -> new Report(r, environment)).toList();
        return new Report(medians(runResults), environment, runs);
    }

    /** One result per scenario, store and subject: each metric's median over the runs that measured it. */
    static List<Result> medians(List<List<Result>> runResults) {
        Map<String, List<Result>> byCell = new java.util.LinkedHashMap<>();
        for (List<Result> run : runResults) {
            for (Result r : run) {
                byCell.computeIfAbsent(r.scenario() + "/" + r.store() + "/" + r.subject(), k -> new ArrayList<>()).add(r);
            }
        }
        List<Result> medians = new ArrayList<>();
        for (List<Result> cell : byCell.values()) {
            List<Result> ok = cell.stream().filter(Result::ok).toList();
            if (ok.isEmpty()) {
                medians.add(cell.get(0));
                continue;
            }
            Map<String, Double> metrics = new java.util.LinkedHashMap<>();
            java.util.Set<String> names = new java.util.LinkedHashSet<>();
            ok.forEach(r -> names.addAll(r.metrics().keySet())); // the hot lock's error kinds differ from run to run
            for (String metric : names) {
                metrics.put(metric, median(ok.stream().filter(r -> r.metrics().containsKey(metric))
                        .mapToDouble(r -> r.metric(metric)).toArray()));
            }
            Result first = ok.get(0);
            medians.add(new Result(first.scenario(), first.store(), first.subject(), first.locksmith(), first.baseline(),
                    first.comparedTo(), java.util.Collections.unmodifiableMap(metrics), null));
        }
        return medians;
    }

    /** The median of {@code values} (the mean of the middle two for an even count); NaN values are left out. */
    static double median(double[] values) {
        double[] sorted = java.util.Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /** How many runs this report combines. */
    int runCount() {
        return runs.isEmpty() ? 1 : runs.size();
    }

    /** {@code figure} of each run (NaN where a run lacks it): what a median and range are taken over. */
    private double[] perRun(java.util.function.ToDoubleFunction<Report> figure) {
        return runs.stream().mapToDouble(figure).toArray();
    }

    /** The same row in this (single-run) report, if it was measured here. */
    private Optional<Result> same(Result row) {
        return find(row.scenario(), row.store(), row.subject());
    }

    /** The baseline result of a store and scenario, if it was measured. */
    Optional<Result> baseline(Scenario scenario, Store store) {
        return results.stream().filter(r -> r.scenario() == scenario && r.store() == store && r.baseline() && r.ok())
                .findFirst();
    }

    Optional<Result> find(Scenario scenario, Store store, String subject) {
        return results.stream().filter(r -> r.scenario() == scenario && r.store() == store
                && r.subject().equals(subject) && r.ok()).findFirst();
    }

    /** The row {@code result}'s ratios divide by: the one it is compared to, else its table's baseline. */
    Optional<Result> reference(Result result) {
        if (result.comparedTo() != null) {
            return find(result.scenario(), result.store(), result.comparedTo());
        }
        return baseline(result.scenario(), result.store());
    }

    /**
     * {@code result}'s metric divided by its reference row's, or NaN if either is missing; over several runs, the
     * median of the ratios taken within each run.
     */
    double ratio(Result result, String metric) {
        if (!runs.isEmpty()) {
            return median(perRun(run -> run.same(result).map(r -> run.ratio(r, metric)).orElse(Double.NaN)));
        }
        return reference(result)
                .filter(b -> b.metrics().containsKey(metric) && result.metrics().containsKey(metric))
                .map(b -> result.metric(metric) / b.metric(metric))
                .orElse(Double.NaN);
    }

    static final String DOC_START = "<!-- bench results: start (written by the bench with --update-doc) -->";
    static final String DOC_END = "<!-- bench results: end -->";

    /**
     * {@code document} with the text between {@link #DOC_START} and {@link #DOC_END} replaced by this run's
     * results, headings moved two levels down.
     *
     * @throws IllegalArgumentException if the document lacks the markers
     */
    String intoDocument(String document) {
        int start = document.indexOf(DOC_START);
        int end = document.indexOf(DOC_END);
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("the document has no '" + DOC_START + "' ... '" + DOC_END + "' section");
        }
        String body = markdown().replaceFirst("^# .*\n\n", "").replaceAll("(?m)^## ", "### ");
        return document.substring(0, start + DOC_START.length()) + "\n" + body + document.substring(end);
    }

    String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("# Locksmith bench results\n\n");
        md.append("## Environment\n\n| | |\n|---|---|\n");
        environment.forEach((key, value) -> md.append("| ").append(key).append(" | ").append(value).append(" |\n"));
        md.append("\n## Ratios to the raw client (same run, same servers)\n\n");
        md.append(summary());
        md.append("\n## Targets\n\n").append(targets());
        md.append("\n## Store round trips (raw client, one request)\n\nRead: Redis PING, ZooKeeper exists,"
                + " etcd serializable get. Write: Redis SET, ZooKeeper setData, etcd put. Handoffs are counted in"
                + " write round trips.\n\n| store | round trip | p50 µs | p99 µs |\n|---|---|---:|---:|\n");
        for (Result r : results) {
            if (r.scenario() == Scenario.ROUND_TRIP && r.ok()) {
                md.append("| ").append(r.store().title()).append(" | ").append(r.subject()).append(" | ")
                        .append(num(r.metric("p50_us"))).append(" | ").append(num(r.metric("p99_us"))).append(" |\n");
            }
        }
        for (Scenario scenario : List.of(Scenario.UNCONTENDED, Scenario.CONTENDED, Scenario.MANY_NAMES, Scenario.RENEWAL,
                Scenario.ASYNC_OVERHEAD, Scenario.RW_READ_HEAVY, Scenario.SEMAPHORE, Scenario.LEADER_FAILOVER)) {
            boolean onlyWhenNamed = scenario == Scenario.ASYNC_OVERHEAD || DESCRIPTIONS.containsKey(scenario);
            if (onlyWhenNamed && results.stream().noneMatch(r -> r.scenario() == scenario)) {
                continue; // only when it was asked for (--scenarios async-overhead, semaphore, ...)
            }
            String description = scenario == Scenario.CONTENDED
                    ? scenario.description().formatted(environment.getOrDefault(CONTENDED_HOLD, "1 ms"),
                            environment.getOrDefault(CONTENDED_THINK, "20 ms"))
                    : DESCRIPTIONS.containsKey(scenario)
                    ? environment.getOrDefault(DESCRIPTIONS.get(scenario), scenario.title())
                    : scenario.description();
            md.append("\n## ").append(capitalize(scenario.title())).append("\n\n").append(capitalize(description))
                    .append(". Ratios (×) divide by the row marked *baseline*.\n");
            for (Store store : Store.values()) {
                List<Result> rows = results.stream().filter(r -> r.scenario() == scenario && r.store() == store).toList();
                if (!rows.isEmpty()) {
                    md.append("\n").append(table(scenario, store, rows));
                }
            }
        }
        if (results.stream().anyMatch(r -> r.scenario() == Scenario.HOT_LOCK)) {
            md.append(hotLock());
        }
        List<Result> failures = results.stream().filter(r -> !r.ok()).toList();
        if (!failures.isEmpty()) {
            md.append("\n## Not measured\n\n");
            for (Result r : failures) {
                md.append("- ").append(r.store().title()).append(", ").append(r.scenario().title()).append(", ")
                        .append(r.subject()).append(": ").append(r.failure().replace('\n', ' ')).append("\n");
            }
        }
        return md.toString();
    }

    private String table(Scenario scenario, Store store, List<Result> rows) {
        List<Column> columns = COLUMNS.get(scenario);
        if (scenario == Scenario.UNCONTENDED && rows.stream().anyMatch(r -> r.metrics().containsKey("server_us_per_op"))) {
            // Redis: the server's own time per pair (INFO commandstats, top-level calls; RedisServerCost)
            columns = new java.util.ArrayList<>(columns);
            columns.add(new Column("server_us_per_op", "server µs per pair", true));
        }
        StringBuilder md = new StringBuilder("**").append(store.title()).append("**\n\n| client |");
        StringBuilder rule = new StringBuilder("|---|");
        for (Column column : columns) {
            md.append(" ").append(column.header()).append(" |");
            rule.append("---:|");
            if (column.ratio()) {
                md.append(" × |");
                rule.append("---:|");
            }
        }
        if (scenario == Scenario.CONTENDED) {
            md.append(" handoff p50 in write round trips | in write round trips after 1 ms idle |");
            rule.append("---:|---:|");
        }
        md.append("\n").append(rule).append("\n");
        for (Result r : rows) {
            md.append("| ").append(r.locksmith() ? "**" + r.subject() + "**" : r.subject())
                    .append(r.baseline() ? " *(baseline)*" : "")
                    .append(r.comparedTo() != null ? " *(× to " + r.comparedTo() + ")*" : "").append(" |");
            if (!r.ok()) {
                md.append(" not measured: see below |\n");
                continue;
            }
            for (Column column : columns) {
                boolean whole = DESCRIPTIONS.containsKey(scenario) && WHOLE_COUNTS.contains(column.metric());
                md.append(" ").append(whole ? valueCell(r, column.metric(), Report::count) : valueCell(r, column.metric()))
                        .append(" |");
                if (column.ratio()) {
                    md.append(" ").append(ratioCell(r, column.metric())).append(" |");
                }
            }
            if (scenario == Scenario.CONTENDED) {
                for (String kind : List.of(RoundTrips.WRITE, RoundTrips.IDLE_WRITE)) {
                    md.append(" ").append(roundTripsCell(r, kind)).append(" |");
                }
            }
            md.append("\n");
        }
        return md.toString();
    }

    /** The contended handoff p50 divided by the store's write round trip p50 (per run, then the median). */
    double inRoundTrips(Result contended) {
        return inRoundTrips(contended, RoundTrips.WRITE);
    }

    /**
     * The contended handoff p50 divided by the p50 of the store's round trip {@code kind} (per run, then the median):
     * {@link RoundTrips#WRITE}, or {@link RoundTrips#IDLE_WRITE}, what a release and an acquire cost when they meet an
     * idle server and idle threads, as a handoff does.
     */
    double inRoundTrips(Result contended, String kind) {
        if (!runs.isEmpty()) {
            return median(perRun(run -> run.same(contended).map(r -> run.inRoundTrips(r, kind)).orElse(Double.NaN)));
        }
        return find(Scenario.ROUND_TRIP, contended.store(), kind)
                .map(rt -> contended.metric("handoff_p50_us") / rt.metric("p50_us")).orElse(Double.NaN);
    }

    /** {@link #inRoundTrips(Result, String)} as a cell: the median of the runs and their range. */
    String roundTripsCell(Result contended, String kind) {
        return withRange(inRoundTrips(contended, kind), perRun(run -> run.same(contended)
                .map(r -> run.inRoundTrips(r, kind)).orElse(Double.NaN)), Report::ratioText);
    }

    /**
     * {@code row}'s metric divided by the same metric of {@code other}, a subject of the same scenario and store, or
     * NaN if either is missing; over several runs, the median of the ratios taken within each run.
     */
    double ratioTo(Result row, String other, String metric) {
        if (!runs.isEmpty()) {
            return median(perRun(run -> run.same(row).map(r -> run.ratioTo(r, other, metric)).orElse(Double.NaN)));
        }
        return find(row.scenario(), row.store(), other)
                .filter(o -> o.metrics().containsKey(metric) && row.metrics().containsKey(metric))
                .map(o -> row.metric(metric) / o.metric(metric))
                .orElse(Double.NaN);
    }

    /** {@link #ratioTo} as a cell: the median of the per-run ratios and their range. */
    String ratioToCell(Result row, String other, String metric) {
        return withRange(ratioTo(row, other, metric), perRun(run -> run.same(row)
                .map(r -> run.ratioTo(r, other, metric)).orElse(Double.NaN)), Report::ratioText);
    }

    /** The results (medians of the runs when there were several). */
    List<Result> results() {
        return results;
    }

    /** One row per Locksmith subject: its key ratios across the scenarios. */
    String summary() {
        StringBuilder md = new StringBuilder("| Locksmith on | uncontended p50 × | uncontended ops/s × | contended acquisitions/s ×"
                + " | handoff p50 × | many names ops/s × | renewal store requests/s × | renewal client CPU × |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|\n");
        List<String> seen = new ArrayList<>();
        for (Result r : results) {
            String key = r.store() + "/" + r.subject();
            if (!r.locksmith() || seen.contains(key) || r.scenario() == Scenario.HOT_LOCK
                    || r.scenario() == Scenario.ASYNC_OVERHEAD || DESCRIPTIONS.containsKey(r.scenario())) {
                continue;
            }
            seen.add(key);
            md.append("| ").append(r.store().title()).append(": ").append(r.subject()).append(" | ")
                    .append(cell(Scenario.UNCONTENDED, r, "p50_us")).append(" | ")
                    .append(cell(Scenario.UNCONTENDED, r, "ops_per_s")).append(" | ")
                    .append(cell(Scenario.CONTENDED, r, "acquisitions_per_s")).append(" | ")
                    .append(cell(Scenario.CONTENDED, r, "handoff_p50_us")).append(" | ")
                    .append(cell(Scenario.MANY_NAMES, r, "ops_per_s")).append(" | ")
                    .append(cell(Scenario.RENEWAL, r, "store_requests_per_s")).append(" | ")
                    .append(cell(Scenario.RENEWAL, r, "client_cpu_pct")).append(" |\n");
        }
        if (seen.isEmpty()) {
            return "None of this table's scenarios (uncontended, contended, many names, renewal) was run.\n";
        }
        md.append("\nBaselines: Redis: Jedis `SET NX PX` + Lua delete (uncontended, many names), the same with a 20 ms"
                + " spin-retry (contended), Redisson RLock's watchdog (renewal); ZooKeeper: Curator InterProcessMutex;"
                + " etcd: jetcd Lock with a lease per thread (a lease per lock for renewal). Locksmith over Redisson is"
                + " compared to the same minimal protocol sent through Redisson where that was measured (uncontended,"
                + " many names). Below 1 is faster/cheaper"
                + " for latency, traffic and CPU; above 1 is better for ops/s and acquisitions/s.\n");
        return md.toString();
    }

    private String cell(Scenario scenario, Result anyRow, String metric) {
        return find(scenario, anyRow.store(), anyRow.subject()).map(r -> ratioCell(r, metric)).orElse("–");
    }

    /** A row's figure: the median of the runs and their range, e.g. {@code 1,121 (1,050–1,300)}. */
    String valueCell(Result row, String metric) {
        double median = row.metrics().getOrDefault(metric, Double.NaN);
        return withRange(median, perRun(run -> run.same(row).map(r -> r.metrics().getOrDefault(metric, Double.NaN))
                .orElse(Double.NaN)), Report::num);
    }

    /** A row's ratio to its reference row: the median of the per-run ratios and their range. */
    String ratioCell(Result row, String metric) {
        return withRange(ratio(row, metric), perRun(run -> run.same(row).map(r -> run.ratio(r, metric))
                .orElse(Double.NaN)), Report::ratioText);
    }

    private static String withRange(double median, double[] perRun,
                                    java.util.function.DoubleFunction<String> format) {
        String text = format.apply(median);
        double[] measured = java.util.Arrays.stream(perRun).filter(v -> !Double.isNaN(v) && !Double.isInfinite(v))
                .toArray();
        if (measured.length < 2 || Double.isNaN(median)) {
            return text;
        }
        double low = java.util.Arrays.stream(measured).min().orElseThrow();
        double high = java.util.Arrays.stream(measured).max().orElseThrow();
        return text + " (" + format.apply(low) + "–" + format.apply(high) + ")";
    }

    /** The targets, each with the measured figure, whatever it is. */
    String targets() {
        StringBuilder md = new StringBuilder("| target | store | Locksmith | measured | met |\n|---|---|---|---:|:---:|\n");
        for (Result r : results) {
            if (!r.locksmith() || !r.ok() || r.store() == Store.SENTINEL) {
                continue; // Sentinel compares Locksmith with itself (WAIT or not): no raw-client target applies
            }
            switch (r.scenario()) {
                case UNCONTENDED -> {
                    double vsMinimal = ratio(r, "p50_us");
                    target(md, "uncontended p50 ≤ 1.10 × raw minimal protocol"
                            + reference(r).map(b -> " (" + b.subject() + ")").orElse(""), r, vsMinimal,
                            vsMinimal <= 1.10, "×", ratioCell(r, "p50_us"));
                    if (r.store() == Store.REDIS) {
                        find(Scenario.UNCONTENDED, Store.REDIS, "Redisson RLock").ifPresent(rlock -> {
                            double vs = r.metric("p50_us") / rlock.metric("p50_us");
                            target(md, "uncontended p50 not slower than Redisson RLock", r, vs, vs <= 1.0, "×", null);
                        });
                    } else if (r.store() != Store.MEM) {
                        baseline(Scenario.UNCONTENDED, r.store()).ifPresent(raw -> target(md,
                                "uncontended p50 not slower than " + raw.subject(), r, vsMinimal, vsMinimal <= 1.0, "×",
                                ratioCell(r, "p50_us")));
                    }
                }
                case CONTENDED -> {
                    if (r.store() != Store.MEM) {
                        double rtts = inRoundTrips(r);
                        target(md, "contended handoff p50 ≤ 2 store (write) round trips", r, rtts, rtts <= 2.0, " RTT",
                                null);
                        if (r.store() == Store.REDIS) {
                            find(Scenario.CONTENDED, Store.REDIS, "Redisson RLock").ifPresent(rlock -> {
                                double vs = toRedisson(r);
                                target(md, "contended acquisitions/s ≥ 3 × Redisson RLock's", r, vs, vs >= 3.0, "×",
                                        null);
                            });
                            double toWaiter = r.metrics().getOrDefault("handoffs_to_waiters_pct", Double.NaN);
                            target(md, "contended: 90 % or more handed to a waiting client", r, toWaiter,
                                    toWaiter >= 90, " %", valueCell(r, "handoffs_to_waiters_pct"));
                        } else {
                            double acquisitions = ratio(r, "acquisitions_per_s");
                            double goal = r.store() == Store.ETCD ? 10.0 : 1.0;
                            target(md, "contended acquisitions/s ≥ " + num(goal) + " × raw client's", r, acquisitions,
                                    acquisitions >= goal, "×", ratioCell(r, "acquisitions_per_s"));
                        }
                        if (r.store() == Store.ETCD) {
                            double p99 = r.metrics().getOrDefault("handoff_p99_us", Double.NaN);
                            target(md, "contended handoff p99 < 10 ms", r, p99, p99 < 10_000, " µs",
                                    valueCell(r, "handoff_p99_us"));
                        }
                        double vsBaseline = ratio(r, "handoff_p50_us");
                        if (r.store() == Store.REDIS) {
                            target(md, "handoff p50 far ahead of 20 ms spin-retry (≤ 0.25 ×)", r, vsBaseline,
                                    vsBaseline <= 0.25, "×", ratioCell(r, "handoff_p50_us"));
                        } else {
                            target(md, "handoff p50 ≤ raw client's", r, vsBaseline, vsBaseline <= 1.0, "×",
                                    ratioCell(r, "handoff_p50_us"));
                        }
                    }
                }
                case HOT_LOCK -> hotLockTargets(md, r);
                case SEMAPHORE -> {
                    // A run that saw more is not measured (it fails loudly); this row says the bound held in every run.
                    double most = highest(r, "most_held");
                    double permits = r.metrics().getOrDefault("permits", Double.NaN);
                    target(md, "semaphore: never more than its " + count(permits) + " permits held at once", r, most,
                            most <= permits, " held", count(most));
                }
                case MANY_NAMES -> {
                    double vs = ratio(r, "ops_per_s");
                    target(md, "many names ops/s ≥ 1.0 × raw client's", r, vs, vs >= 1.0, "×", ratioCell(r, "ops_per_s"));
                }
                case RENEWAL -> {
                    double vs = ratio(r, "store_requests_per_s");
                    double lost = r.metrics().getOrDefault("locks_lost", 0.0);
                    target(md, "renewal store requests/s well below per-lock renewal (≤ 0.1 ×), no lock lost"
                            + (lost > 0 ? " (" + num(lost) + " lost)" : ""), r, vs, vs <= 0.1 && lost == 0, "×",
                            ratioCell(r, "store_requests_per_s"));
                }
                default -> {
                }
            }
        }
        return md.toString();
    }

    /**
     * Issue 29's goals for the hot lock: the most platform waiters reach 0.8 × the fewest waiters' acquisitions/s, and
     * no call at any waiter count errs, times out or runs past its bound + 1 s.
     */
    private void hotLockTargets(StringBuilder md, Result r) {
        List<String> prefixes = hotPrefixes(r);
        List<String> platform = prefixes.stream().filter(p -> p.startsWith("w")).toList();
        if (platform.size() >= 2) {
            String most = platform.get(platform.size() - 1);
            double ratio = r.metrics().getOrDefault(most + "x_first", Double.NaN);
            target(md, "hot lock: " + waiters(most) + " ≥ 0.8 × " + waiters(platform.get(0)) + "' acquisitions/s", r,
                    ratio, ratio >= 0.8, "×", valueCell(r, most + "x_first", Report::ratioText));
        }
        String runsText = runCount() > 1 ? " (all " + runCount() + " runs)" : "";
        double failed = 0;
        for (String prefix : platform) {
            for (String metric : List.of("timeouts", "errors", "failed")) {
                failed += total(r, prefix + metric);
            }
        }
        if (!platform.isEmpty()) {
            target(md, "hot lock: no time-out or error at " + String.join(", ", platform.stream().map(Report::waiters)
                    .map(w -> w.replace(" waiters", "")).toList()) + " waiters" + runsText, r, failed, failed == 0,
                    " calls", count(failed));
        }
        // With thousands of waiters on a 1 ms hold the queue alone outlasts a 10 s bound, so time-outs there are
        // arithmetic; the bound itself must still hold for every call.
        double late = 0;
        for (String prefix : prefixes) {
            late += total(r, prefix + "past_bound") + total(r, prefix + "stuck") + total(r, prefix + "errors")
                    + total(r, prefix + "failed");
        }
        target(md, "hot lock: no error and no wait past its bound + 1 s at any count" + runsText, r, late, late == 0,
                " calls", count(late));
    }

    /** The waiter counts a hot-lock row has, as metric prefixes: platform threads by count, then virtual threads. */
    static List<String> hotPrefixes(Result r) {
        java.util.TreeMap<Integer, String> platform = new java.util.TreeMap<>();
        java.util.TreeMap<Integer, String> virtual = new java.util.TreeMap<>();
        java.util.regex.Pattern pattern = java.util.regex.Pattern.compile("^(w|vt)([0-9]+)_(acquisitions_per_s|failed)$");
        for (String metric : r.metrics().keySet()) {
            java.util.regex.Matcher m = pattern.matcher(metric);
            if (m.matches()) {
                (m.group(1).equals("w") ? platform : virtual).put(Integer.parseInt(m.group(2)), m.group(1) + m.group(2) + "_");
            }
        }
        List<String> prefixes = new ArrayList<>(platform.values());
        prefixes.addAll(virtual.values());
        return prefixes;
    }

    /** {@code w1000_} as "1,000 waiters", {@code vt10000_} as "10,000 virtual threads". */
    static String waiters(String prefix) {
        boolean virtual = prefix.startsWith("vt");
        int count = Integer.parseInt(prefix.substring(virtual ? 2 : 1, prefix.length() - 1));
        return String.format(Locale.ROOT, "%,d %s", count, virtual ? "virtual threads" : "waiters");
    }

    /** Every run of this report: the runs it combines, or itself. */
    private List<Report> eachRun() {
        return runs.isEmpty() ? List.of(this) : runs;
    }

    /** {@code metric} of {@code row} added up over every run (a missing metric counts 0). */
    double total(Result row, String metric) {
        return eachRun().stream().mapToDouble(run -> run.same(row).map(r -> r.metrics().getOrDefault(metric, 0.0))
                .orElse(0.0)).sum();
    }

    /** The highest {@code metric} of {@code row} over every run, or NaN. */
    private double highest(Result row, String metric) {
        return eachRun().stream().mapToDouble(run -> run.same(row).map(r -> r.metrics().getOrDefault(metric,
                Double.NaN)).orElse(Double.NaN)).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
    }

    /** The hot-lock section: per store, every subject at every waiter count, then the errors by kind. */
    private String hotLock() {
        StringBuilder md = new StringBuilder("\n## Hot lock\n\n");
        md.append(capitalize(Scenario.HOT_LOCK.description().formatted(environment.getOrDefault(HOT_WAIT, "10 s"),
                environment.getOrDefault(HOT_HOLD, "1 ms"), environment.getOrDefault(HOT_WINDOW, "10 s"))))
                .append(" (").append(environment.getOrDefault(HOT_COUNTS, "")).append("). Acquisitions/s: median of the runs"
                        + " (range); × is the ratio to the fewest waiters' acquisitions/s of the same subject, taken within each"
                        + " run. Time-outs, errors, waits past the bound + 1 s and stuck threads are added up over ")
                .append(runCount() == 1 ? "the run" : "all " + runCount() + " runs")
                .append(", over every call of a count (its warm-up and the calls in progress when its window closed"
                        + " included); the longest wait is the longest of all runs. A thread still inside an acquire "
                        + HotLock.DRAIN_SLACK.toSeconds() + " s after the bound is counted stuck (and its wait so far as past"
                        + " the bound).\n");
        for (Store store : Store.values()) {
            List<Result> rows = results.stream().filter(r -> r.scenario() == Scenario.HOT_LOCK && r.store() == store)
                    .toList();
            if (rows.isEmpty()) {
                continue;
            }
            md.append("\n**").append(store.title()).append("**\n\n| client | waiters | acquisitions/s | × | time-outs"
                    + " | other errors | past bound + 1 s | longest wait s | stuck | overlaps |\n"
                    + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            List<String> kinds = new ArrayList<>();
            for (Result r : rows) {
                String client = (r.locksmith() ? "**" + r.subject() + "**" : r.subject()) + (r.baseline() ? " *(baseline)*" : "");
                if (!r.ok()) {
                    md.append("| ").append(client).append(" | | not measured: see below | | | | | | | |\n");
                    continue;
                }
                for (String prefix : hotPrefixes(r)) {
                    md.append("| ").append(client).append(" | ").append(waiters(prefix).replace(" waiters", ""))
                            .append(" | ");
                    if (total(r, prefix + "failed") > 0) {
                        md.append("not measured: see below | | | | | | | |\n");
                    } else {
                        double longest = highest(r, prefix + "longest_wait_ms");
                        md.append(valueCell(r, prefix + "acquisitions_per_s", Report::num)).append(" | ")
                                .append(valueCell(r, prefix + "x_first", Report::ratioText)).append(" | ")
                                .append(count(total(r, prefix + "timeouts"))).append(" | ")
                                .append(count(total(r, prefix + "errors"))).append(" | ")
                                .append(count(total(r, prefix + "past_bound"))).append(" | ")
                                .append(Double.isNaN(longest) ? "–" : String.format(Locale.ROOT, "%.2f", longest / 1000))
                                .append(" | ").append(count(total(r, prefix + "stuck"))).append(" | ")
                                .append(count(total(r, prefix + "exclusion_violations"))).append(" |\n");
                    }
                    java.util.Map<String, Double> byKind = new java.util.TreeMap<>();
                    for (Report run : eachRun()) {
                        run.same(r).ifPresent(same -> same.metrics().forEach((metric, value) -> {
                            if (metric.startsWith(prefix + "error.")) {
                                byKind.merge(metric.substring(prefix.length() + "error.".length()), value, Double::sum);
                            }
                        }));
                    }
                    byKind.forEach((kind, count) -> kinds.add(r.subject() + ", " + waiters(prefix) + ": "
                            + kind.replace("|", "/").replace('\n', ' ') + " × " + count(count)));
                }
            }
            if (!kinds.isEmpty()) {
                md.append("\nErrors by kind (").append(store.title()).append("):\n\n");
                kinds.forEach(line -> md.append("- ").append(line).append("\n"));
            }
        }
        return md.toString();
    }

    /** A row's figure as {@link #valueCell(Result, String)}, in the given format. */
    String valueCell(Result row, String metric, java.util.function.DoubleFunction<String> format) {
        double median = row.metrics().getOrDefault(metric, Double.NaN);
        return withRange(median, perRun(run -> run.same(row).map(r -> r.metrics().getOrDefault(metric, Double.NaN))
                .orElse(Double.NaN)), format);
    }

    /** Contended acquisitions/s over Redisson RLock's, per run and then the median, as every other ratio. */
    private double toRedisson(Result contended) {
        if (!runs.isEmpty()) {
            return median(perRun(run -> run.same(contended).map(run::toRedisson).orElse(Double.NaN)));
        }
        return find(Scenario.CONTENDED, Store.REDIS, "Redisson RLock")
                .map(rlock -> contended.metric("acquisitions_per_s") / rlock.metric("acquisitions_per_s"))
                .orElse(Double.NaN);
    }

    /**
     * @param shown what the measured column shows (a median with its range), or null for the plain figure
     */
    private static void target(StringBuilder md, String target, Result r, double measured, boolean met, String unit,
                               String shown) {
        md.append("| ").append(target).append(" | ").append(r.store().title()).append(" | ").append(r.subject())
                .append(" | ").append(Double.isNaN(measured) ? "–" : shown != null ? shown + unit
                        : String.format(Locale.ROOT, "%.2f%s", measured, unit))
                .append(" | ").append(Double.isNaN(measured) ? "?" : met ? "yes" : "**no**").append(" |\n");
    }

    String json() {
        ObjectNode document = JSON.createObjectNode();
        ObjectNode environmentNode = document.putObject("environment");
        environment.forEach(environmentNode::put);
        ArrayNode resultNodes = document.putArray("results");
        for (Result r : results) {
            ObjectNode node = resultNodes.addObject();
            node.put("scenario", r.scenario().name().toLowerCase(Locale.ROOT));
            node.put("store", r.store().name().toLowerCase(Locale.ROOT));
            node.put("subject", r.subject());
            node.put("locksmith", r.locksmith());
            node.put("baseline", r.baseline());
            if (r.ok()) {
                ObjectNode metrics = node.putObject("metrics");
                r.metrics().forEach((metric, value) -> metrics.put(metric, jsonNumber(value)));
                if (!r.baseline() && r.scenario() != Scenario.ROUND_TRIP) {
                    ObjectNode ratios = node.putObject("ratios");
                    for (Column column : COLUMNS.getOrDefault(r.scenario(), List.of())) {
                        ratios.put(column.metric(), jsonNumber(ratio(r, column.metric())));
                    }
                }
            } else {
                node.put("failure", r.failure());
            }
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(document) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot write the bench report as JSON", e);
        }
    }

    static String num(double value) {
        if (Double.isNaN(value)) {
            return "–";
        }
        if (Math.abs(value) >= 100) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (Math.abs(value) >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    /** A count: whole, with thousands separators. */
    static String count(double value) {
        return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%,.0f", value);
    }

    static String ratioText(double ratio) {
        return Double.isNaN(ratio) || Double.isInfinite(ratio) ? "–" : String.format(Locale.ROOT, "%.2f", ratio);
    }

    /** Four decimals, as the Markdown tables are read; null where a measure is missing or undefined. */
    private static BigDecimal jsonNumber(Double value) {
        return value == null || value.isNaN() || value.isInfinite()
                ? null : BigDecimal.valueOf(value).setScale(4, RoundingMode.HALF_UP);
    }

    private static String capitalize(String text) {
        return Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }
}
