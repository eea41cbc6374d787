package io.locksmith.lockctl;

import io.locksmith.LockClient;
import io.locksmith.spi.LockUri;
import io.locksmith.tck.TckReport;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckRunner;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.UriLockTck;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.concurrent.atomic.AtomicInteger;

/** {@code lockctl tck}: the compatibility test kit against a live store. */
@Command(name = "tck", mixinStandardHelpOptions = true,
        description = {
                "Runs every rule of the Locksmith TCK (docs/SPEC.md) against a live store of any scheme on the classpath, "
                        + "a custom backend jar included (java -cp lockctl.jar:my-backend.jar io.locksmith.lockctl.Lockctl tck ...).",
                "Prints a rule-by-rule table and a summary. Exit code 1 if a required rule fails (or none passed).",
                "The summary names the deployment's shape (one node or replicated) and the fault rules it needs beyond"
                        + " these, which run only in a fault-kit class with the deployment's hooks (docs/TCK.md).",
                "The rules write locks with test names: use a store no production system relies on."})
final class TckCommand implements Callable<Integer> {

    private static final int MESSAGE_WIDTH = 160;

    @Spec
    CommandSpec spec;

    @Mixin
    StoreOption store;

    @Option(names = "--json", description = "Print the results as JSON.")
    boolean json;

    @Option(names = "--rule", paramLabel = "ID", split = ",",
            description = "Run only these rules, e.g. --rule R1.1,R2.1 (default: all).")
    List<String> rules = new ArrayList<>();

    @Option(names = "--scale", paramLabel = "FACTOR",
            description = "Stretch the kit's timing for slow stores, e.g. 2.5. Default: the least scale whose short lease"
                    + " the store honours (etcd: 2.5 for a 1 s minimum lease, 5 for 2 s). A scale under that is refused"
                    + " (exit 2).")
    Double scale;

    @Option(names = "--shape", paramLabel = "SHAPE",
            description = "The deployment's shape: single, or replicated:N for N members (default: from the URI's"
                    + " addresses; a cluster behind one address, or Sentinel's replicas, are not in the URI).")
    String shapeOption;

    /** The shape the verdict names, and where it was learnt. */
    record Shape(DeploymentShape shape, String source) {
        @Override
        public String toString() {
            return shape.toString();
        }
    }

    @Override
    @SuppressWarnings("try") // the resource is held for its scope only
    public Integer call() {
        String uri = store.uri();
        Shape shape = shapeOf(uri, shapeOption);
        if (scale != null && !(scale > 0)) {
            throw new UsageException("--scale must be a positive number, was " + scale);
        }
        String scheme = LockUri.parse(uri).scheme();
        if (!Schemes.available().contains(scheme)) {
            throw new UsageException("unknown lock store scheme '" + scheme + "'; available on the classpath: "
                    + Schemes.available());
        }
        List<String> methods = testMethods(rules);
        PrintWriter err = spec.commandLine().getErr();
        // One connection first, so an unreachable store is one line and exit 3, not every rule failing; a connect
        // that takes more than a moment shows a progress line.
        try (Progress connecting = Progress.start(err, "connecting to " + LockUri.redact(uri), () -> "");
             LockClient ignored = LockClient.open(uri)) {
            // reachable
        }
        // The kit's short lease must be one the store honours: a smaller scale is a setup error, not 8 violations.
        java.time.Duration minimum = UriLockTck.minimumTtlOf(uri);
        if (scale != null && TckTiming.defaults().scaledBy(scale).shortLease().compareTo(minimum) < 0) {
            throw new UsageException("--scale too small: " + UriLockTck.tooSmallScale(scale, minimum, uri));
        }
        if (scale == null) {
            err.println("lockctl: timing scale " + TckTiming.scaleFor(minimum) + " (the store's shortest lease is "
                    + minimum.toMillis() + " ms; --scale to stretch it further)");
            err.flush();
        }
        AtomicInteger rulesDone = new AtomicInteger();
        TckReport report;
        // The runner's line per finished rule, on stderr, is the progress.
        try (PrintStream progress = new PrintStream(new LineForwarder(err, rulesDone), true, StandardCharsets.UTF_8)) {
            report = run(uri, methods, progress);
        }
        PrintWriter out = spec.commandLine().getOut();
        long requiredFailures = report.failures().stream().filter(TckCommand::isRequired).count();
        if (json) {
            printJson(out, uri, report, requiredFailures, shape);
        } else {
            printTable(out, uri, report, requiredFailures, shape);
        }
        boolean anyPassed = report.count(TckReport.Status.PASSED) > 0;
        return requiredFailures == 0 && anyPassed ? ExitCode.OK : ExitCode.CHECK_FAILED;
    }

    private TckReport run(String uri, List<String> methods, PrintStream progress) {
        // The kit's workload prints its verdicts to System.out; keep stdout for the table (and --json).
        PrintStream stdout = System.out;
        System.setOut(progress);
        try {
            if (scale == null && methods.isEmpty()) {
                return TckRunner.run(uri, progress);
            }
            Map<String, String> configuration = new LinkedHashMap<>();
            configuration.put(UriLockTck.URI_PARAMETER, uri);
            if (scale != null) {
                configuration.put(UriLockTck.SCALE_PARAMETER, String.valueOf(scale));
            }
            return TckRunner.run(UriLockTck.class, configuration, progress, methods);
        } finally {
            System.setOut(stdout);
        }
    }

    /** The kit's test methods for the given rule ids. */
    static List<String> testMethods(List<String> ruleIds) {
        List<TckRule> rules = new ArrayList<>();
        for (String id : ruleIds) {
            TckRule rule = TckRule.byId(id.strip()).orElseThrow(() -> new UsageException("--rule: unknown rule '" + id
                    + "'; rules look like R1.1 (see docs/SPEC.md)"));
            if (!rules.contains(rule)) {
                rules.add(rule);
            }
        }
        return TckRunner.testMethods(UriLockTck.class, rules);
    }

    /** Whether a result belongs to a required rule; a failure outside any rule (the kit could not start) counts as required. */
    static boolean isRequired(TckReport.RuleResult result) {
        return TckRule.ofMethod(result.testName()).map(TckRule::isRequired).orElse(true);
    }

    /**
     * The deployment's shape: {@code --shape} if given, else what the URI shows (its addresses; Sentinel and RedLock
     * by scheme).
     *
     * @throws UsageException if {@code --shape} is neither {@code single} nor {@code replicated:N} with N at least 2
     */
    static Shape shapeOf(String uri, String option) {
        if (option != null) {
            String text = option.strip().toLowerCase(Locale.ROOT);
            if (text.equals("single")) {
                return new Shape(DeploymentShape.singleNode(), "as --shape says");
            }
            if (text.startsWith("replicated:")) {
                try {
                    int members = Integer.parseInt(text.substring("replicated:".length()));
                    if (members >= 2) {
                        return new Shape(DeploymentShape.replicated(members), "as --shape says");
                    }
                } catch (NumberFormatException e) {
                    // reported below
                }
            }
            throw new UsageException("--shape must be 'single' or 'replicated:N' with N members (2 or more), was '"
                    + option + "'");
        }
        LockUri parsed = LockUri.parse(uri);
        if (parsed.scheme().equals("mem")) {
            return new Shape(DeploymentShape.singleNode(), "in this process, no network");
        }
        int addresses = parsed.rawHosts().size();
        if (parsed.scheme().startsWith("redis-sentinel")) {
            return new Shape(DeploymentShape.replicated(Math.max(2, addresses)), "a primary and its replicas behind"
                    + " Sentinel, whose members the URI does not list: --shape replicated:N says how many");
        }
        if (addresses >= 2) {
            return new Shape(DeploymentShape.replicated(addresses), "from the URI's " + addresses + " addresses");
        }
        return new Shape(DeploymentShape.singleNode(), "from the URI's " + (addresses == 0 ? "lack of an address" : "one address")
                + "; a cluster behind one address is not seen: --shape replicated:N says it is one");
    }

    /** The fault rules the shape requires, which lockctl tck does not run: R7.7, R8.10, then R9 in order. */
    static List<FaultRule> faultRulesNotRun(DeploymentShape shape) {
        return shape.requiredRules().stream()
                .sorted((a, b) -> compareRuleIds(a.id(), b.id()))
                .collect(Collectors.toList());
    }

    private static String faultRulesLine(Shape shape) {
        List<FaultRule> rules = faultRulesNotRun(shape.shape());
        String ids = rules.stream().map(FaultRule::id).collect(Collectors.joining(", "));
        String partitions = shape.shape().isReplicated()
                ? " Until R9.6, R9.9 and R9.10 (a member killed, cut from its peers, frozen) pass there, this verdict says"
                        + " nothing about how a replicated store behaves when its members fail or split."
                : "";
        return "Deployment: " + shape + " (" + shape.source() + "). Its fault rules (" + ids + ") are not run by"
                + " lockctl tck: they need a fault-kit class (LockFaultTck) with the deployment's hooks, see docs/TCK.md."
                + partitions;
    }

    private static void printTable(PrintWriter out, String uri, TckReport report, long requiredFailures, Shape shape) {
        Table table = new Table("RULE", "STATUS", "TEST", "TIME", "MESSAGE");
        List<TckReport.RuleResult> results = new ArrayList<>(report.results());
        results.sort((a, b) -> compareRuleIds(a.ruleId(), b.ruleId()));
        for (TckReport.RuleResult result : results) {
            table.row(result.ruleId(), result.status(), result.testName(), result.duration().toMillis() + " ms",
                    shorten(result.message()));
        }
        table.print(out);
        boolean passed = requiredFailures == 0 && report.count(TckReport.Status.PASSED) > 0;
        out.println(faultRulesLine(shape));
        out.println("TCK " + (passed ? "PASSED" : "FAILED") + " on " + LockUri.redact(uri) + " (" + shape + "): "
                + report.count(TckReport.Status.PASSED) + " passed, " + report.count(TckReport.Status.FAILED) + " failed, "
                + report.count(TckReport.Status.SKIPPED) + " skipped");
        long optionalFailures = report.failures().size() - requiredFailures;
        if (requiredFailures > 0) {
            out.println(requiredFailures + " required rule(s) failed: this store is not a conforming Locksmith store.");
        }
        if (optionalFailures > 0) {
            out.println(optionalFailures + " optional rule(s) failed: the store declares a capability it does not honour.");
        }

    }

    private static void printJson(PrintWriter out, String uri, TckReport report, long requiredFailures, Shape shape) {
        List<Object> results = new ArrayList<>();
        for (TckReport.RuleResult result : report.results()) {
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("rule", result.ruleId());
            item.put("test", result.testName());
            item.put("status", result.status().name());
            item.put("required", isRequired(result));
            item.put("millis", result.duration().toMillis());
            item.put("message", result.message());
            results.add(item);
        }
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("uri", LockUri.redact(uri));
        document.put("passed", requiredFailures == 0 && report.count(TckReport.Status.PASSED) > 0);
        Map<String, Object> counts = new LinkedHashMap<>();
        counts.put("passed", report.count(TckReport.Status.PASSED));
        counts.put("failed", report.count(TckReport.Status.FAILED));
        counts.put("skipped", report.count(TckReport.Status.SKIPPED));
        document.put("counts", counts);
        Map<String, Object> deployment = new LinkedHashMap<>();
        deployment.put("shape", shape.shape().isReplicated() ? "replicated" : "single");
        deployment.put("members", shape.shape().members());
        deployment.put("source", shape.source());
        deployment.put("faultRulesNotRun", faultRulesNotRun(shape.shape()).stream().map(FaultRule::id).toList());
        document.put("deployment", deployment);
        document.put("results", results);
        out.println(Json.write(document));
    }

    /** R2.1 before R10.1: numeric parts compare as numbers. */
    static int compareRuleIds(String a, String b) {
        String[] left = a.replaceAll("^[^0-9]*", "").split("\\.");
        String[] right = b.replaceAll("^[^0-9]*", "").split("\\.");
        for (int i = 0; i < Math.min(left.length, right.length); i++) {
            int compared = Integer.compare(parse(left[i]), parse(right[i]));
            if (compared != 0) {
                return compared;
            }
        }
        return left.length != right.length ? Integer.compare(left.length, right.length) : a.compareTo(b);
    }

    private static int parse(String number) {
        try {
            return Integer.parseInt(number);
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }

    private static String shorten(String message) {
        String line = Lockctl.firstLine(message).replaceFirst("^Assumption failed: ", "");
        return line.length() <= MESSAGE_WIDTH ? line : line.substring(0, MESSAGE_WIDTH - 3) + "...";
    }

    /** Sends the runner's per-rule lines to stderr, counting them for the progress line. */
    private static final class LineForwarder extends OutputStream {
        private final PrintWriter err;
        private final AtomicInteger lines;
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

        LineForwarder(PrintWriter err, AtomicInteger lines) {
            this.err = err;
            this.lines = lines;
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                flushLine();
            } else {
                buffer.write(b);
            }
        }

        @Override
        public synchronized void close() {
            if (buffer.size() > 0) {
                flushLine();
            }
        }

        private void flushLine() {
            err.println(buffer.toString(StandardCharsets.UTF_8).stripTrailing());
            err.flush();
            buffer.reset();
            lines.incrementAndGet();
        }
    }
}
