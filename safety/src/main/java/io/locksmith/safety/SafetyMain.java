package io.locksmith.safety;

import io.locksmith.tck.LockShape;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a {@link SafetyRun} on each named deployment (all by default) and writes one markdown and one JSON
 * report each, the run's timeline ({@code <report>-timeline.json} and its {@link TimelineChart},
 * {@code <report>-timeline.png}), plus {@code summary.md}, into the reports directory. Exits with 1 if any run was unsafe or
 * failed to start.
 * <pre>
 * ./mvnw -B -ntp -pl safety -am verify -Psafety -DskipTests      # every deployment, 60 s each
 * ./mvnw -B -ntp -pl safety -am verify -Psafety -DskipTests -Dsafety.args="--duration 30s redis-sentinel etcd-3"
 * </pre>
 * Arguments: {@code [--duration 60s] [--operations N] [--every-fault T] [--locks K]
 * [--shape mutex|write-lock|semaphore|election-term] [--readers SHARE] [--reports DIR] [deployment ...]}, or
 * {@code --timeline-from FILE...} to draw the timelines of earlier runs ({@code <report>-timeline.json}) without running;
 * with {@code --operations} a run lasts until N lock-protected operations are done and the duration is only its cap;
 * with {@code --every-fault} too, it also goes on until each fault the deployment supports completed T times
 * ({@link SafetyRun#everyFault(int)});
 * with {@code --locks} the clients contend for K locks at once, each with its own fenced register (the operations
 * are their sum, drawn from one budget); with {@code --shape} other than {@code mutex} every holding is an exclusive use
 * of that primitive ({@link SafetyRun#shape(LockShape)}), and the reports are named {@code <deployment>-<shape>.md},
 * {@code .json} and {@code summary-<shape>.md} so that they sit beside the mutex's; with {@code --readers} (0 to 1,
 * the write-lock shape only) that share of the operations are readers beside the writers
 * ({@link SafetyRun#readers(double)}), and {@code -readers} ends the names. Deployments:
 * {@link Deployments#names()}.
 */
public final class SafetyMain {

    private SafetyMain() {
    }

    public static void main(String[] args) {
        int timelineFrom = List.of(args).indexOf("--timeline-from");
        if (timelineFrom >= 0) {
            // Nothing run: draw the timelines of the files named after the option.
            try {
                TimelineChart.main(java.util.Arrays.copyOfRange(args, timelineFrom + 1, args.length));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return;
        }
        Duration duration = Duration.ofSeconds(60);
        int operations = 0;
        int everyFault = 0;
        int locks = 1;
        LockShape shape = LockShape.MUTEX;
        double readers = 0;
        Path reports = Path.of("reports");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--duration" -> duration = parseDuration(args[++i]);
                case "--operations" -> operations = Integer.parseInt(args[++i]);
                case "--every-fault" -> everyFault = Integer.parseInt(args[++i]);
                case "--locks" -> locks = Integer.parseInt(args[++i]);
                case "--shape" -> shape = LockShape.fromArgument(args[++i]);
                case "--readers" -> readers = Double.parseDouble(args[++i]);
                case "--reports" -> reports = Path.of(args[++i]);
                default -> names.add(args[i]);
            }
        }
        if (names.isEmpty()) {
            names.addAll(Deployments.names());
        }
        String command = "./mvnw -B -ntp -pl safety -am verify -Psafety -DskipTests -Dsafety.args=\"--duration "
                + duration.toSeconds() + "s" + (operations > 0 ? " --operations " + operations : "")
                + (everyFault > 0 ? " --every-fault " + everyFault : "")
                + (locks > 1 ? " --locks " + locks : "")
                + (shape != LockShape.MUTEX ? " --shape " + shape.argument() : "")
                + (readers > 0 ? " --readers " + readers : "") + " %s\"";
        String suffix = (shape == LockShape.MUTEX ? "" : "-" + shape.argument()) + (readers > 0 ? "-readers" : "");
        boolean allSafe = true;
        List<String> results = new ArrayList<>();
        results.add("| deployment | s | operations (failed) | " + String.join(" | ", faultHeadings())
                + " | overlaps | stale writes accepted / rejected | token order violations | verdict |");
        results.add("|---|---|---|" + "---|".repeat(Fault.values().length) + "---|---|---|---|");
        for (String name : names) {
            System.out.println("safety run on " + name + suffix + " for " + duration.toSeconds() + " s ...");
            try (Deployment deployment = Deployments.start(name)) {
                SafetyRun run = SafetyRun.on(deployment).duration(duration).locks(locks).everyFault(everyFault)
                        .shape(shape).readers(readers);
                SafetyReport report = (operations > 0 ? run.operations(operations) : run).run();
                write(reports.resolve(name + suffix + ".md"), report.toMarkdown(String.format(command, name)));
                write(reports.resolve(name + suffix + ".json"), report.toJson());
                writeTimeline(run.timeline(), reports.resolve(name + suffix + "-timeline"));
                results.add(row(name + suffix, report));
                allSafe &= report.isSafe();
                System.out.println(name + suffix + ": " + (report.isSafe() ? "SAFE" : "UNSAFE") + "; " + report.workload());
            } catch (RuntimeException e) {
                allSafe = false;
                results.add("| " + name + suffix + " | - | - |" + " - |".repeat(Fault.values().length) + " - | - | - | FAILED TO RUN: "
                        + String.valueOf(e.getMessage()).replace('\n', ' ').replace("|", "/") + " |");
                e.printStackTrace();
            }
        }
        write(reports.resolve("summary" + suffix + ".md"), "# Safety runs"
                + (shape == LockShape.MUTEX ? "" : ", every holding through " + shape.argument())
                + (readers > 0 ? ", " + Math.round(readers * 100) + "% of the operations readers" : "") + "\n\n"
                + String.join("\n", results) + "\n");
        System.out.println(String.join("\n", results));
        System.exit(allSafe ? 0 : 1);
    }

    private static List<String> faultHeadings() {
        List<String> headings = new ArrayList<>();
        for (Fault fault : Fault.values()) {
            headings.add(fault.description());
        }
        return headings;
    }

    /** One row of the results table: the cells of docs/RELIABILITY.md. */
    static String row(String name, SafetyReport report) {
        StringBuilder row = new StringBuilder("| " + name + " | " + report.duration().toSeconds() + " | "
                + report.workload().operations() + " (" + report.workload().errors() + ") | ");
        for (Fault fault : Fault.values()) {
            row.append(report.summaryOf(fault)).append(" | ");
        }
        return row.append(report.workload().overlaps()).append(" | ")
                .append(report.workload().staleWritesAccepted() + report.staleHolderWritesAccepted()).append(" / ")
                .append(report.workload().staleWritesRejected()).append(" | ")
                .append(report.workload().tokenMonotonicityViolations()).append(" | ")
                .append(report.isSafe() ? "SAFE" : "**UNSAFE**").append(" |").toString();
    }

    private static Duration parseDuration(String text) {
        String value = text.strip().toLowerCase(java.util.Locale.ROOT);
        if (value.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
        }
        if (value.endsWith("m")) {
            return Duration.ofMinutes(Long.parseLong(value.substring(0, value.length() - 1)));
        }
        return Duration.ofSeconds(Long.parseLong(value.endsWith("s") ? value.substring(0, value.length() - 1) : value));
    }

    /**
     * The run's timeline as JSON ({@code <base>.json}, to draw again with {@code --timeline-from}) and its chart
     * ({@code <base>.png}); a chart that cannot be drawn does not fail the run, whose report is written.
     */
    static void writeTimeline(Timeline timeline, Path base) {
        Path json = base.resolveSibling(base.getFileName() + ".json");
        write(json, timeline.toJson());
        Path png = base.resolveSibling(base.getFileName() + ".png");
        try {
            TimelineChart.write(timeline, png);
        } catch (IOException | RuntimeException e) {
            System.out.println("timeline not drawn (draw it with --timeline-from " + json + "): " + e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
