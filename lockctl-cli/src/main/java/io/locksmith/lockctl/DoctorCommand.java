package io.locksmith.lockctl;

import io.locksmith.lockctl.doctor.Doctor;
import io.locksmith.lockctl.doctor.Finding;
import io.locksmith.lockctl.doctor.Verdict;
import io.locksmith.spi.Durations;
import io.locksmith.spi.LockUri;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code lockctl doctor}: checks a store against the lock-failure cheat sheet. */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = {
                "Checks a lock store against the lock-failure cheat sheet; each check gets OK, WARN or FAIL and a fix.",
                "Redis: round trip, role and replication lag, maxmemory-policy, persistence, slow lock scripts, clock. "
                        + "ZooKeeper: session timeout, ensemble size, each server's mode (srvr), quorum. "
                        + "etcd: members, status and leader of each endpoint.",
                "Redis Cluster: cluster_state of every node, slot coverage, replicas per shard against waitReplicas, "
                        + "cluster-node-timeout against the lease, slot migrations left open, WAIT, and the Redis checks "
                        + "on every primary. PostgreSQL: role, version, clock, lock table and rights, durability, "
                        + "standbys (pg_stat_replication, synchronous_standby_names, synchronous_commit).",
                "Doctor only reads, except for one probe lock of a unique name (lockctl:doctor:probe:UUID) acquired and "
                        + "released through Locksmith; --read-only skips it.",
                "Exit code 1 if any check FAILs."})
final class DoctorCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    StoreOption store;

    @Option(names = "--read-only", description = "Skip the probe lock: write nothing at all.")
    boolean readOnly;

    @Option(names = "--json", description = "Print the findings as JSON.")
    boolean json;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "3s",
            description = "How long any one request may take (default: ${DEFAULT-VALUE}).")
    String timeout;

    @Override
    @SuppressWarnings("try") // the resource is held for its scope only
    public Integer call() {
        String uri = store.uri();
        Duration requestTimeout = parseDuration(timeout, "--timeout");
        String scheme = LockUri.parse(uri).scheme();
        if (!Doctor.hasStoreChecks(scheme) && !Schemes.available().contains(scheme)) {
            throw new UsageException("unknown lock store scheme '" + scheme + "'; available: " + Schemes.available());
        }
        List<Finding> findings;
        try (Progress ignored = Progress.start(spec.commandLine().getErr(), "doctor checking " + LockUri.redact(uri), () -> "")) {
            findings = Doctor.examine(uri, readOnly, requestTimeout);
        }
        PrintWriter out = spec.commandLine().getOut();
        Verdict worst = Doctor.worst(findings);
        if (json) {
            printJson(out, uri, findings, worst);
        } else {
            printText(out, uri, findings);
        }
        return worst == Verdict.FAIL ? ExitCode.CHECK_FAILED : ExitCode.OK;
    }

    static Duration parseDuration(String text, String option) {
        try {
            Duration duration = Durations.parse(text);
            if (duration.isZero() || duration.isNegative()) {
                throw new IllegalArgumentException("must be positive");
            }
            return duration;
        } catch (RuntimeException e) {
            throw new UsageException(option + ": '" + text + "' is not a positive duration like 500ms or 3s (" + e.getMessage() + ")");
        }
    }

    private static void printText(PrintWriter out, String uri, List<Finding> findings) {
        out.println("lockctl doctor " + LockUri.redact(uri));
        Map<Verdict, Integer> counts = new EnumMap<>(Verdict.class);
        for (Finding finding : findings) {
            counts.merge(finding.verdict(), 1, Integer::sum);
            out.printf("[%-4s] %s: %s%n", finding.verdict(), finding.check(), finding.detail());
            if (!finding.fix().isEmpty()) {
                out.println("       fix: " + finding.fix());
            }
        }
        out.printf("%d OK, %d WARN, %d FAIL%n", counts.getOrDefault(Verdict.OK, 0), counts.getOrDefault(Verdict.WARN, 0),
                counts.getOrDefault(Verdict.FAIL, 0));
    }

    private static void printJson(PrintWriter out, String uri, List<Finding> findings, Verdict worst) {
        List<Object> list = new ArrayList<>();
        for (Finding finding : findings) {
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("check", finding.check());
            item.put("verdict", finding.verdict().name());
            item.put("detail", finding.detail());
            item.put("fix", finding.fix());
            list.add(item);
        }
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("uri", LockUri.redact(uri));
        document.put("verdict", worst.name());
        document.put("findings", list);
        out.println(Json.write(document));
    }
}
