package io.locksmith.lockctl;

import io.locksmith.lockctl.bench.Bench;
import io.locksmith.spi.LockUri;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code lockctl bench}: quick latency and throughput figures for a store. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {
                "Quick figures for a store: uncontended acquire+release latency (p50, p99) and ops/s with one client, "
                        + "then handoffs/s with T clients contending for one lock name.",
                "Writes locks named lockctl:bench:UUID. One run, no statistics: a first look, not a benchmark."})
final class BenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    StoreOption store;

    @Option(names = "--ops", paramLabel = "N", defaultValue = "1000",
            description = "Acquire+release pairs per phase (default: ${DEFAULT-VALUE}).")
    int ops;

    @Option(names = "--threads", paramLabel = "T", defaultValue = "4",
            description = "Contending clients, one thread each (default: ${DEFAULT-VALUE}).")
    int threads;

    @Override
    @SuppressWarnings("try") // the resource is held for its scope only
    public Integer call() {
        String uri = store.uri();
        Bench bench = new Bench(uri, ops, threads);
        Bench.Result result;
        try (Progress ignored = Progress.start(spec.commandLine().getErr(), "bench on " + LockUri.redact(uri),
                () -> bench.done() + " of " + 2 * ops + " ops")) {
            result = bench.run();
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("lockctl bench " + LockUri.redact(uri));
        Table table = new Table("PHASE", "FIGURE", "VALUE");
        table.row("uncontended, 1 client", "acquire+release p50", result.p50Micros() + " us");
        table.row("", "acquire+release p99", result.p99Micros() + " us");
        table.row("", "throughput", String.format(Locale.ROOT, "%.0f ops/s", result.uncontendedOps()));
        table.row("contended, " + threads + " clients, 1 name", "handoffs", String.format(Locale.ROOT, "%.0f /s",
                result.handoffsPerSecond()));
        table.row("", "acquire wait p99", result.contendedP99Micros() + " us");
        table.print(out);
        return ExitCode.OK;
    }
}
