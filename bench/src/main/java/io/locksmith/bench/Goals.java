package io.locksmith.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoublePredicate;

/**
 * Issue 35's goals in one command ({@code --goals}): runs the three bench configurations the goals are judged in, one
 * after the other (loopback Redis and etcd; PostgreSQL saturated with the lock taken again at once; Redis, ZooKeeper
 * and etcd through the 0.1 ms delaying proxy), writes each one's {@code latest.md}, {@code latest.json} and charts
 * into a folder of its own, and {@code goals.md}: one row per goal and subject, with the figure it is judged by (the
 * median of the per-run ratios and their range) and whether it is met. With {@code --update-doc FILE} the table also
 * goes between the goals markers of FILE.
 *
 * <p>Nothing is judged that the bench does not measure in the same run: every ratio divides two subjects measured a
 * few seconds apart on the same servers, as in every other table of the bench.
 */
final class Goals {

    static final String DOC_START = "<!-- issue 35 goals: start (written by the bench with --goals --update-doc) -->";
    static final String DOC_END = "<!-- issue 35 goals: end -->";

    static final String USAGE = """
            usage: java -jar bench/target/locksmith-bench.jar --goals [--runs N] [--out DIR] [--update-doc FILE]
              --runs N          runs of each configuration (default 3)
              --out DIR         where goals.md and one folder per configuration go (default bench/results/goals)
              --update-doc FILE also put the goals table between the goals markers of FILE (docs/PERFORMANCE.md)
            """;

    /** One bench configuration the goals need, run as the bench's own command line with these arguments. */
    record Part(String folder, String what, List<String> args) {
    }

    private record Row(String item, String goal, String store, String subject, String measured, Boolean met) {
    }

    private Goals() {
    }

    /** The configurations, in the order they run. */
    static List<Part> parts(int runs) {
        String r = Integer.toString(runs);
        return List.of(
                new Part("loopback", "Redis and etcd on loopback, the default scenarios",
                        List.of("--quick", "--runs", r, "--stores", "redis,etcd", "--scenarios",
                                "uncontended,contended,many-names")),
                new Part("postgres", "PostgreSQL, 8 threads saturating one lock, each taking it again at once",
                        List.of("--quick", "--runs", r, "--stores", "postgres", "--scenarios", "uncontended,contended",
                                "--contended-hold", "0ms", "--contended-think", "0ms", "--contended-retake")),
                new Part("network", "Redis, ZooKeeper and etcd through a 0.1 ms each-way delaying proxy",
                        List.of("--quick", "--runs", r, "--stores", "redis,zookeeper,etcd", "--scenarios",
                                "uncontended,contended", "--network-delay", "100us")));
    }

    static void main(String[] args) throws Exception {
        int runs = 3;
        Path out = Path.of("bench", "results", "goals");
        Path updateDoc = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!List.of("--runs", "--out", "--update-doc").contains(arg)) {
                throw new IllegalArgumentException("unknown option '" + arg + "'\n" + USAGE);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(arg + " needs a value\n" + USAGE);
            }
            switch (arg) {
                case "--runs" -> runs = BenchOptions.parse("--runs", args[++i]).runs();
                case "--out" -> out = Path.of(args[++i]);
                case "--update-doc" -> updateDoc = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option '" + arg + "'\n" + USAGE);
            }
        }
        if (updateDoc != null) {
            markers(Files.readString(updateDoc)); // before the ten minutes of runs, not after
        }
        String started = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        List<Report> reports = new ArrayList<>();
        for (Part part : parts(runs)) {
            System.out.println("==== " + part.what() + ": " + String.join(" ", part.args()));
            BenchOptions options = BenchOptions.parse(part.args().toArray(String[]::new));
            Report report = BenchMain.run(options);
            BenchMain.write(report, out.resolve(part.folder()));
            reports.add(report);
        }
        String table = table(reports.get(0), reports.get(1), reports.get(2));
        String text = "Written by `java -jar bench/target/locksmith-bench.jar --goals" + (runs == 3 ? "" : " --runs " + runs)
                + "`, " + started + " to " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ", load (1/5/15 min) "
                + BenchMain.loadAverage() + " at the end; " + runs + " run(s) of each configuration; every figure the"
                + " median of the per-run ratios with their range. The configurations' full tables: `"
                + out.resolve("<loopback|postgres|network>/latest.md") + "`.\n\n" + table;
        Files.createDirectories(out);
        Files.writeString(out.resolve("goals.md"), text);
        System.out.println("\n" + text + "\nwrote " + out.resolve("goals.md"));
        if (updateDoc != null) {
            Files.writeString(updateDoc, intoDocument(Files.readString(updateDoc), text));
            System.out.println("updated the goals in " + updateDoc);
        }
    }

    /** The goals table from the three configurations' reports. */
    static String table(Report loopback, Report postgres, Report network) {
        List<Row> rows = new ArrayList<>();
        for (Result r : locksmith(loopback, Scenario.UNCONTENDED, Store.REDIS)) {
            double ratio = loopback.ratio(r, "server_us_per_op");
            Result reference = loopback.reference(r).orElse(null);
            rows.add(row(loopback, "1", "server time per acquire + release ≤ 2 × the minimal lock's, per transport"
                            + " (INFO commandstats)", r,
                    loopback.ratioCell(r, "server_us_per_op") + "× (" + loopback.valueCell(r, "server_us_per_op")
                            + " µs against " + (reference == null ? "–" : loopback.valueCell(reference, "server_us_per_op"))
                            + " µs" + (reference == null ? "" : ", " + reference.subject()) + ")", ratio, v -> v <= 2.0));
        }
        for (Result r : locksmith(loopback, Scenario.UNCONTENDED, Store.REDIS)) {
            rows.add(row(loopback, "2", "uncontended p50 ≤ 1.25 × the minimal lock (loopback)", r,
                    loopback.ratioCell(r, "p50_us") + "× (" + loopback.valueCell(r, "p50_us") + " µs)",
                    loopback.ratio(r, "p50_us"), v -> v <= 1.25));
        }
        for (Result r : locksmith(loopback, Scenario.CONTENDED, Store.REDIS)) {
            rows.add(row(loopback, "2", "contended handoff p50 ≤ 2.5 × one raw acquire (a SET round trip)", r,
                    loopback.roundTripsCell(r, RoundTrips.WRITE) + "× (" + loopback.valueCell(r, "handoff_p50_us")
                            + " µs)", loopback.inRoundTrips(r), v -> v <= 2.5));
        }
        String peer = "Spring Integration JdbcLockRegistry (polls every 100 ms)";
        for (Result r : locksmith(postgres, Scenario.CONTENDED, Store.POSTGRES)) {
            double toAnother = r.metrics().getOrDefault("to_another_thread_pct", Double.NaN);
            rows.add(row(postgres, "3", "saturated, retake: ≥ 90 % of acquisitions by another thread than the last holder"
                    + " (FIFO handoff)", r, postgres.valueCell(r, "to_another_thread_pct") + " %", toAnother, v -> v >= 90));
            rows.add(row(postgres, "3", "saturated, retake: acquisitions/s ≥ Spring Integration JdbcLockRegistry's", r,
                    postgres.ratioToCell(r, peer, "acquisitions_per_s") + "× (" + postgres.valueCell(r,
                            "acquisitions_per_s") + "/s; Spring Integration " + postgres.find(Scenario.CONTENDED,
                            Store.POSTGRES, peer).map(p -> postgres.valueCell(p, "acquisitions_per_s") + "/s, "
                            + postgres.valueCell(p, "to_another_thread_pct") + " % to another thread").orElse("–") + ")",
                    postgres.ratioTo(r, peer, "acquisitions_per_s"), v -> v >= 1.0));
        }
        for (Result r : locksmith(loopback, Scenario.CONTENDED, Store.ETCD)) {
            rows.add(ratioRow(loopback, "4", "contended acquisitions/s ≥ 10 × jetcd Lock's (loopback)", r,
                    "acquisitions_per_s", v -> v >= 10));
        }
        for (Result r : locksmith(network, Scenario.CONTENDED, Store.ETCD)) {
            rows.add(ratioRow(network, "4", "contended acquisitions/s ≥ 10 × jetcd Lock's (0.1 ms network)", r,
                    "acquisitions_per_s", v -> v >= 10));
        }
        for (Store store : List.of(Store.REDIS, Store.ZOOKEEPER, Store.ETCD)) {
            for (Result r : locksmith(network, Scenario.UNCONTENDED, store)) {
                rows.add(ratioRow(network, "5", "0.1 ms network: uncontended p50 ≤ 1.05 × "
                        + network.reference(r).map(Result::subject).orElse("the raw client"), r, "p50_us", v -> v <= 1.05));
            }
        }
        for (Store store : List.of(Store.REDIS, Store.ZOOKEEPER, Store.ETCD)) {
            for (Result r : locksmith(network, Scenario.CONTENDED, store)) {
                rows.add(row(network, "5", "0.1 ms network: contended handoff p50 ≤ 1.5 round trips", r,
                        network.roundTripsCell(r, RoundTrips.WRITE) + " round trips (" + network.valueCell(r,
                                "handoff_p50_us") + " µs)", network.inRoundTrips(r), v -> v <= 1.5));
            }
        }
        for (Result r : locksmith(loopback, Scenario.MANY_NAMES, Store.REDIS)) {
            rows.add(ratioRow(loopback, "6", "many names ops/s ≥ 0.9 × the minimal lock's", r, "ops_per_s",
                    v -> v >= 0.9));
        }
        StringBuilder md = new StringBuilder("| # | goal | store | Locksmith | measured | met |\n|---|---|---|---|---|:---:|\n");
        for (Row row : rows) {
            md.append("| ").append(row.item()).append(" | ").append(row.goal()).append(" | ").append(row.store())
                    .append(" | ").append(row.subject()).append(" | ").append(row.measured()).append(" | ")
                    .append(row.met() == null ? "?" : row.met() ? "yes" : "**no**").append(" |\n");
        }
        List<String> missing = new ArrayList<>();
        for (Report report : List.of(loopback, postgres, network)) {
            report.results().stream().filter(r -> !r.ok()).forEach(r -> missing.add(r.store().title() + ", "
                    + r.scenario().title() + ", " + r.subject() + ": " + r.failure().replace('\n', ' ')));
        }
        if (!missing.isEmpty()) {
            md.append("\nNot measured (a goal without its figure shows ?):\n\n");
            missing.forEach(line -> md.append("- ").append(line).append("\n"));
        }
        return md.toString();
    }

    private static List<Result> locksmith(Report report, Scenario scenario, Store store) {
        return report.results().stream().filter(r -> r.scenario() == scenario && r.store() == store && r.locksmith()
                && r.ok()).toList();
    }

    private static Row ratioRow(Report report, String item, String goal, Result r, String metric, DoublePredicate met) {
        String unit = metric.endsWith("_us") ? " µs" : metric.endsWith("_per_s") ? "/s" : "";
        return row(report, item, goal, r, report.ratioCell(r, metric) + "× (" + report.valueCell(r, metric) + unit + ")",
                report.ratio(r, metric), met);
    }

    private static Row row(Report report, String item, String goal, Result r, String measured, double judged,
                           DoublePredicate met) {
        return new Row(item, goal, r.store().title(), r.subject(), measured,
                Double.isNaN(judged) ? null : met.test(judged));
    }

    /** {@code document} with the text between the goals markers replaced by {@code text}. */
    static String intoDocument(String document, String text) {
        int[] at = markers(document);
        return document.substring(0, at[0] + DOC_START.length()) + "\n" + text + document.substring(at[1]);
    }

    private static int[] markers(String document) {
        int start = document.indexOf(DOC_START);
        int end = document.indexOf(DOC_END);
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("the document has no '" + DOC_START + "' ... '" + DOC_END + "' section");
        }
        return new int[] {start, end};
    }

}
