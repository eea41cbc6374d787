package io.locksmith.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs the bench: starts each store's server on a free loopback port, runs every scenario for every
 * subject against it, one after the other, and writes {@code latest.md}, {@code latest.json} and the charts of
 * {@link ChartWriter} next to them. Usage: {@link BenchOptions#USAGE}.
 */
public final class BenchMain {

    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        if (java.util.List.of(args).contains("--help") || java.util.List.of(args).contains("-h")) {
            System.out.println(BenchOptions.USAGE);
            return;
        }
        if (args.length > 0 && args[0].equals("--charts-from")) {
            ChartWriter.main(java.util.Arrays.copyOfRange(args, 1, args.length)); // nothing run, nothing started
            return;
        }
        if (args.length > 0 && args[0].equals("--goals")) {
            try {
                Goals.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                System.exit(2);
            }
            System.exit(0);
            return;
        }
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Report report = run(options);
        write(report, options.out());
        if (options.updateDoc() != null) {
            Files.writeString(options.updateDoc(), report.intoDocument(Files.readString(options.updateDoc())));
            System.out.println("updated the results in " + options.updateDoc());
        }
        System.exit(0); // client libraries leave non-daemon threads behind (Redisson, gRPC)
    }

    /** Writes {@code latest.md}, {@code latest.json} and their charts into {@code out}, and prints the summary. */
    static Path write(Report report, Path out) throws IOException {
        Files.createDirectories(out);
        Path markdown = out.resolve("latest.md");
        Path json = out.resolve("latest.json");
        Files.writeString(markdown, report.markdown());
        Files.writeString(json, report.json());
        System.out.println("\n" + report.summary() + "\n" + report.targets());
        System.out.println("wrote " + markdown + " and " + json);
        try {
            ChartWriter.write(json).forEach(chart -> System.out.println("wrote " + chart));
        } catch (IOException | RuntimeException e) {
            // The figures are written already: a chart that cannot be drawn must not lose them.
            System.out.println("charts not drawn (redraw with --charts-from " + json + "): " + e);
        }
        return json;
    }

    static Report run(BenchOptions options) throws IOException {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("started", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        environment.put("command", "java -jar bench/target/locksmith-bench.jar " + options.commandLine());
        environment.put("mode", options.quick() ? "quick" : "full");
        environment.put("config", options.config().toString());
        environment.put(Report.CONTENDED_HOLD, options.config().hold().toMillis() + " ms");
        environment.put(Report.CONTENDED_THINK, options.config().thinkMax().toMillis() + " ms");
        environment.put("cpus", Integer.toString(Runtime.getRuntime().availableProcessors()));
        String jvmArguments = String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments());
        environment.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                + ", max heap " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MB"
                + (jvmArguments.isEmpty() ? "" : ", " + jvmArguments));
        environment.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        environment.put("network", options.networkDelay().isZero()
                ? "loopback (127.0.0.1); every server in its own process on this machine"
                : String.format(Locale.ROOT, "%d µs each way (--network-delay): every client, the round trips included,"
                        + " reaches each server through one delaying proxy on loopback (LatencyProxy; its measured delay"
                        + " per chunk is in the round-trip table); every server in its own process on this machine",
                        options.networkDelay().toNanos() / 1_000));
        environment.put("locksmith backends", backends());
        environment.put("load before (1/5/15 min)", loadAverage());
        Path workDir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "locksmith-bench-");
        environment.put("server data", workDir.startsWith("/dev/shm") ? "tmpfs (/dev/shm): no disk in the figures"
                : workDir.toString());
        environment.put("runs", options.runs() + " (every scenario and subject, one run after the other; figures are"
                + " medians with their range, ratios taken within each run)");
        List<List<Result>> runs = new ArrayList<>();
        for (int run = 0; run < options.runs(); run++) {
            runs.add(new ArrayList<>());
        }
        Scenarios scenarios = new Scenarios(options.config());
        HotLock hotLock = new HotLock(options.hotLock());
        PrimitiveScenarios primitives = new PrimitiveScenarios(options.primitives());
        describePrimitives(options, environment);
        if (options.scenarios().contains(Scenario.HOT_LOCK)) {
            HotLock.Settings hot = options.hotLock();
            environment.put(Report.HOT_WAIT, hot.maxWait().toSeconds() + " s");
            environment.put(Report.HOT_HOLD, hot.hold().toMillis() + " ms");
            environment.put(Report.HOT_WINDOW, hot.measure().toMillis() / 1000.0 + " s after " + hot.warmup().toMillis()
                    / 1000.0 + " s of warm-up");
            environment.put(Report.HOT_COUNTS, String.join(", ", hot.waiters().stream()
                    .map(n -> String.format(Locale.ROOT, "%,d", n)).toList()) + " platform threads"
                    + (hot.virtualThreads() == 0 ? ""
                    : VirtualThreads.factory().isPresent() ? String.format(Locale.ROOT, ", %,d virtual threads",
                    hot.virtualThreads())
                    : "; " + hot.virtualThreads() + " virtual threads not run: " + VirtualThreads.unavailableReason()));
        }
        try (BenchServers servers = new BenchServers(workDir, options.networkDelay())) {
            for (Store store : options.stores()) {
                log("== " + store.title());
                if (!servers.start(store)) {
                    log("   " + servers.problems().get(servers.problems().size() - 1));
                    continue;
                }
                Subjects subjects = new Subjects(servers, options.config());
                warmUp(store, subjects, options);
                if (store != Store.MEM) {
                    try {
                        environment.put(store.title() + " server", servers.version(store));
                    } catch (RuntimeException e) {
                        environment.put(store.title() + " server", "version unknown: " + e);
                    }
                }
                // Run after run, every scenario and subject: the load of the shared machine changes by the minute,
                // and each run's ratios compare subjects measured minutes apart at most.
                for (int run = 0; run < options.runs(); run++) {
                    List<Result> results = runs.get(run);
                    log(String.format(Locale.ROOT, "-- %s, run %d of %d (load %s)", store.title(), run + 1,
                            options.runs(), loadAverage()));
                    if (store != Store.MEM) {
                        try {
                            RoundTrips.measure(store, servers, scenarios).forEach((kind, rtt) -> {
                                results.add(Result.roundTrip(store, kind, rtt));
                                log(String.format(Locale.ROOT, "   %s p50 %.1f µs", kind, rtt.get("p50_us")));
                            });
                        } catch (Exception e) {
                            log("   round trip failed: " + e);
                        }
                    }
                    LatencyProxy network = servers.network(store);
                    if (network != null) {
                        network.resetRecorded(); // the proxy's delays of this run's scenarios, not of its round trips
                    }
                    for (Scenario scenario : options.scenarios()) {
                        for (Subjects.Entry entry : subjects.of(store, scenario)) {
                            if (options.includes(entry)) {
                                results.add(runOne(scenario, entry, scenarios, hotLock, primitives, servers, store));
                            }
                        }
                    }
                    if (network != null) {
                        RoundTrips.proxyDelays(network).forEach((kind, delay) -> {
                            results.add(Result.roundTrip(store, kind, delay));
                            log(String.format(Locale.ROOT, "   %s p50 %.1f µs p99 %.1f µs", kind, delay.get("p50_us"),
                                    delay.get("p99_us")));
                        });
                    }
                }
            }
            servers.problems().forEach(problem -> environment.put("problem", problem));
        }
        environment.put("load after (1/5/15 min)", loadAverage());
        environment.put("finished", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        return Report.of(runs, environment);
    }

    /**
     * Runs every uncontended subject of the store once, untimed, before anything is measured: the first code
     * to run in a fresh JVM competes with the JIT compiler for the two cores, and without this pass the
     * first subject measured (the baseline) looked twice as slow as it is.
     */
    private static void warmUp(Store store, Subjects subjects, BenchOptions options) {
        long start = System.nanoTime();
        Scenarios pass = new Scenarios(options.config().withTimes(java.time.Duration.ofMillis(1), options.config().warmup()));
        for (Subjects.Entry entry : subjects.of(store, Scenario.UNCONTENDED)) {
            if (options.includes(entry)) {
                try {
                    pass.uncontended(entry.subject(), "bench.jvm-warm-up." + Math.abs(entry.subject().label().hashCode()));
                } catch (Exception | LinkageError e) {
                    // measured (and reported) again below
                }
                Thread.interrupted();
            }
        }
        log(String.format(Locale.ROOT, "   JVM warm-up pass (%.1f s, not measured)", (System.nanoTime() - start) / 1e9));
    }

    private static Result runOne(Scenario scenario, Subjects.Entry entry, Scenarios scenarios, HotLock hotLock,
                                 PrimitiveScenarios primitives, BenchServers servers, Store store) {
        Subject subject = entry.subject();
        String tag = "bench." + scenario.name().toLowerCase(Locale.ROOT).replace('_', '-') + "."
                + subject.label().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-") + ".";
        long start = System.nanoTime();
        try {
            if (store == Store.REDIS || store == Store.SENTINEL) {
                servers.flushRedis(store);
            }
            Map<String, Double> metrics = switch (scenario) {
                case UNCONTENDED -> scenarios.uncontended(subject, tag + "lock", store == Store.REDIS
                        ? new RedisServerCost(servers.port(Store.REDIS)) : null);
                case CONTENDED -> scenarios.contended(subject, tag + "lock");
                case MANY_NAMES -> scenarios.manyNames(subject, tag);
                case RENEWAL -> scenarios.renewal(subject, tag, () -> servers.requestsServed(store));
                case HOT_LOCK -> hotLock.run(subject, tag + "lock");
                case ASYNC_OVERHEAD -> {
                    Map<String, Double> both = new java.util.LinkedHashMap<>(scenarios.uncontended(subject, tag + "free"));
                    both.putAll(scenarios.contended(subject, tag + "hot"));
                    yield both;
                }
                case RW_READ_HEAVY -> primitives.readWriteReadHeavy((PrimitiveSubject) subject, tag + "rw");
                case SEMAPHORE -> primitives.semaphore((PrimitiveSubject) subject, tag + "permits");
                case LEADER_FAILOVER -> primitives.leaderFailover((PrimitiveSubject) subject, tag + "election");
                case ROUND_TRIP -> throw new IllegalArgumentException("round trip is not a subject scenario");
            };
            String brief = scenario == Scenario.HOT_LOCK ? String.join("\n" + " ".repeat(62),
                    hotLock.prefixes().stream().map(prefix -> HotLock.brief(metrics, prefix)).toList()) : brief(metrics);
            log(String.format(Locale.ROOT, "   %-12s %-45s %s (%.1f s)", scenario.title(), subject.label(),
                    brief, (System.nanoTime() - start) / 1e9));
            return Result.measured(scenario, entry, metrics);
        } catch (Exception | LinkageError e) {
            String why = e.toString();
            if (e instanceof io.locksmith.LockConfigurationException && why.contains("scheme")) {
                why = "backend not on the bench's class path (" + e.getMessage() + ")";
            }
            log(String.format(Locale.ROOT, "   %-12s %-45s FAILED: %s", scenario.title(), subject.label(), why));
            return Result.failed(scenario, entry, why);
        } finally {
            Thread.interrupted(); // a failed run must not leave the next one interrupted
        }
    }

    /** The primitives scenarios' settings, for their descriptions in the report, when one of them runs. */
    private static void describePrimitives(BenchOptions options, Map<String, String> environment) {
        PrimitiveScenarios.Settings p = options.primitives();
        if (options.scenarios().contains(Scenario.RW_READ_HEAVY)) {
            environment.put(Report.RW_DESCRIPTION, Scenario.RW_READ_HEAVY.description().formatted(p.rwThreads(),
                    p.writePercent(), p.hold().toMillis() + " ms"));
        }
        if (options.scenarios().contains(Scenario.SEMAPHORE)) {
            environment.put(Report.SEMAPHORE_DESCRIPTION, Scenario.SEMAPHORE.description().formatted(p.permits(),
                    p.semaphoreThreads(), p.hold().toMillis() + " ms"));
        }
        if (options.scenarios().contains(Scenario.LEADER_FAILOVER)) {
            environment.put(Report.FAILOVER_DESCRIPTION, Scenario.LEADER_FAILOVER.description().formatted(
                    p.candidates(), p.failoverRounds(), p.crashRounds(), Subjects.FAILOVER_LEASE.toSeconds() + " s"));
        }
        if (options.scenarios().contains(Scenario.RW_READ_HEAVY) || options.scenarios().contains(Scenario.SEMAPHORE)) {
            environment.put("primitives: window", p.measure().toMillis() / 1000.0 + " s after "
                    + p.warmup().toMillis() / 1000.0 + " s of warm-up; each acquire's bound " + p.maxWait().toSeconds()
                    + " s");
        }
    }

    private static String brief(Map<String, Double> metrics) {
        StringBuilder text = new StringBuilder();
        metrics.forEach((key, value) -> {
            if (!key.startsWith("max") && !key.endsWith("_max_us")) {
                text.append(key).append('=').append(Report.num(value)).append(' ');
            }
        });
        return text.toString().strip();
    }

    /** The backends on the class path: schemes and the jar each came from. */
    static String backends() {
        List<String> found = new ArrayList<>();
        for (io.locksmith.spi.LockProviderFactory factory : java.util.ServiceLoader.load(io.locksmith.spi.LockProviderFactory.class)) {
            var source = factory.getClass().getProtectionDomain().getCodeSource();
            String jar = source == null ? "?" : Path.of(source.getLocation().getPath()).getFileName().toString();
            found.add(String.join("/", new java.util.TreeSet<>(factory.schemes())) + " (" + jar + ")");
        }
        java.util.Collections.sort(found);
        return String.join(", ", found);
    }

    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException e) {
            return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    private static void log(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
