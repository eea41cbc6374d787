package io.locksmith.lockctl;

import io.locksmith.LockClient;
import io.locksmith.lockctl.demo.CrashBeforeExpire;
import io.locksmith.lockctl.demo.DemoReport;
import io.locksmith.lockctl.demo.DemoSettings;
import io.locksmith.lockctl.demo.OversellDemo;
import io.locksmith.lockctl.demo.RunResult;
import io.locksmith.spi.Durations;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/** {@code lockctl demo}: the stock-oversell post-mortem, naive lock against Locksmith. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {
                "Replays the stock-oversell post-mortem: service instances sell one hot item under a lock while a "
                        + "slow payment call sometimes outlasts the lease.",
                "First with a naive lock (SET NX with a TTL, plain DEL), then with Locksmith (lease loss reported, "
                        + "stale writes refused by the fencing token). Runs on the in-JVM store (mem://) unless --uri is given.",
                "Exit code 1 if the Locksmith run oversold (it never should)."})
final class DemoCommand implements Callable<Integer> {

    private static final int MAX_EVENT_LINES = 6;

    @Spec
    CommandSpec spec;

    @Option(names = "--uri", paramLabel = "URI", defaultValue = "mem://",
            description = "Store for the Locksmith run (default: ${DEFAULT-VALUE}, no server needed).")
    String uri;

    @Option(names = "--seed", paramLabel = "SEED", defaultValue = "7", description = "Seeds the dependency's latency (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--instances", paramLabel = "N", defaultValue = "4", description = "Service instances, one lock client each (default: ${DEFAULT-VALUE}).")
    int instances;

    @Option(names = "--orders", paramLabel = "N", defaultValue = "40", description = "Orders to sell (default: ${DEFAULT-VALUE}).")
    int orders;

    @Option(names = "--stock", paramLabel = "N", defaultValue = "20", description = "Units in stock at the start (default: ${DEFAULT-VALUE}).")
    int stock;

    @Option(names = "--lease", defaultValue = "100ms", paramLabel = "DURATION",
            description = "Lease time of both locks, e.g. 100ms or 1s (default: ${DEFAULT-VALUE}; etcd needs whole seconds).")
    String lease;

    @Option(names = "--events", negatable = true, defaultValue = "true",
            description = "Show notable events as they happen (default: on).")
    boolean showEvents;

    @Override
    public Integer call() {
        Duration leaseTime;
        try {
            leaseTime = Durations.parse(lease);
        } catch (RuntimeException e) {
            throw new UsageException("--lease: " + e.getMessage());
        }
        DemoSettings settings = DemoSettings.defaults().withUri(uri).withSeed(seed).withInstances(instances)
                .withOrders(orders).withStock(stock).withLease(leaseTime);
        PrintWriter out = spec.commandLine().getOut();
        out.printf("Stock-oversell demo: %d instances sell %d orders of one item with %d in stock.%n",
                settings.instances(), settings.orders(), settings.stock());
        out.printf("Each order: lock, read stock, call payment, deduct one. Every %dth payment call stalls %s, "
                        + "past the %s lease; every %dth order pauses after its lease check (a GC pause).%n%n",
                settings.stallEvery(), Durations.format(settings.stall()), Durations.format(settings.lease()),
                settings.gcPauseEvery());
        out.println("0) the first failure: the lock taken with SETNX, its TTL set by a separate EXPIRE, and a crash"
                + " between the two");
        try (LockClient crashed = LockClient.open(uri); LockClient survivor = LockClient.open(uri)) {
            CrashBeforeExpire scene = CrashBeforeExpire.play(settings.lease(), crashed, survivor,
                    line -> out.println("   " + line));
            out.println("   " + (scene.naiveEternal() ? "naive: ETERNAL LOCK" : "naive: no eternal lock") + "; Locksmith: "
                    + (scene.locksmithFreed() ? "freed after " + scene.freedAfterMillis() + " ms" : "NOT FREED"));
        }
        out.println();
        out.flush();
        EventPrinter events = new EventPrinter(out, showEvents);
        // No progress ticker: the phase lines and events printed as they happen are the progress.
        DemoReport report = OversellDemo.run(settings, events, phase -> {
            events.endRun();
            if (phase.equals(OversellDemo.NAIVE_RUN)) {
                out.println("1) naive lock: SET lock NX PX ttl ... DEL lock; the stock table applies every write");
            } else {
                out.println("2) Locksmith on " + uri + ": fixed lease, onLost + ensureHeld(), fenced stock table");
            }
            out.flush();
        });
        events.endRun();
        out.println();
        report.printTable(out);
        out.println();
        printVerdict(out, report);
        return report.locksmith().safe() ? ExitCode.OK : ExitCode.CHECK_FAILED;
    }

    private static void printVerdict(PrintWriter out, DemoReport report) {
        RunResult naive = report.naive();
        RunResult locksmith = report.locksmith();
        if (naive.oversold()) {
            out.printf("Naive lock: sold %d of %d units (stock %d). Its holders never learned they had lost the lock.%n",
                    naive.unitsSold(), naive.initialStock(), naive.finalStock());
        } else {
            out.println("Naive lock: no oversell this time (try another --seed or more --orders); "
                    + naive.overlaps() + " overlapping holders all the same.");
        }
        if (locksmith.safe()) {
            out.printf("Locksmith: sold %d of %d units, stock never below zero. A lease cannot stop a paused process, "
                            + "but %s reported to %s and %s refused by the fence.%n",
                    locksmith.unitsSold(), locksmith.initialStock(),
                    plural(locksmith.lossesReported(), "loss was", "losses were"),
                    locksmith.lossesReported() == 1 ? "its holder" : "their holders",
                    plural(locksmith.staleStatementsRejected(), "stale write was", "stale writes were"));
        } else {
            out.println("Locksmith: UNSAFE on " + report.store() + (report.fencing() ? "" : " (this store gives no fencing tokens)")
                    + ": stock " + locksmith.finalStock() + ", " + locksmith.staleWritesApplied() + " stale writes applied.");
        }
        if (!report.fencing()) {
            out.println("Note: " + report.store() + " declares no fencing tokens; only the lease-loss signal protects the stock.");
        }
    }

    private static String plural(int count, String one, String many) {
        return count + " " + (count == 1 ? one : many);
    }

    /** Prints the first few notable events of each run, then a count of the rest. */
    private static final class EventPrinter implements Consumer<String> {
        private final PrintWriter out;
        private final boolean enabled;
        private final AtomicInteger printed = new AtomicInteger();
        private final AtomicInteger hidden = new AtomicInteger();

        EventPrinter(PrintWriter out, boolean enabled) {
            this.out = out;
            this.enabled = enabled;
        }

        @Override
        public void accept(String line) {
            if (!enabled) {
                return;
            }
            if (printed.incrementAndGet() <= MAX_EVENT_LINES) {
                synchronized (out) {
                    out.println(line);
                    out.flush();
                }
            } else {
                hidden.incrementAndGet();
            }
        }

        void endRun() {
            if (enabled && hidden.get() > 0) {
                out.println("  ... and " + hidden.get() + " more events like these");
            }
            printed.set(0);
            hidden.set(0);
        }
    }
}
