package io.locksmith.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The raw client (Curator {@code InterProcessMutex} or jetcd {@code Lock} with a lease per thread) and Locksmith
 * over the same store in alternating rounds, with the bench's own uncontended and contended scenarios and subjects
 * (quick windows): the load of a shared machine then falls on both alike, and the median of the per-round ratios
 * is steadier than one bench command's. Run it once per build to compare two builds against the same server. Not
 * part of the bench's tables (docs/PERFORMANCE.md, "ZooKeeper: calls on the caller's thread" and "etcd: one key per
 * client and slot").
 *
 * <pre>java -cp bench/target/locksmith-bench.jar io.locksmith.bench.Interleaved zookeeper 127.0.0.1:2181 8
 * java -cp bench/target/locksmith-bench.jar io.locksmith.bench.Interleaved etcd 127.0.0.1:2379 8</pre>
 */
public final class Interleaved {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private Interleaved() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !List.of("zookeeper", "etcd").contains(args[0])) {
            System.err.println("usage: Interleaved zookeeper|etcd host:port rounds");
            System.exit(2);
        }
        String address = args[1];
        int rounds = Integer.parseInt(args[2]);
        Scenarios scenarios = new Scenarios(BenchConfig.quick());
        Subject raw;
        Subject locksmith;
        if (args[0].equals("zookeeper")) {
            raw = new CuratorSubject("Curator", address, Duration.ofSeconds(15));
            locksmith = new LocksmithSubject("Locksmith", Store.ZOOKEEPER,
                    "zookeeper://" + address + "/bench-locksmith?sessionTimeout=15s&lease=" + LEASE.toMillis() + "ms");
        } else {
            raw = new JetcdSubject("jetcd", "http://" + address, JetcdSubject.LeaseMode.PER_THREAD, LEASE);
            locksmith = new LocksmithSubject("Locksmith", Store.ETCD,
                    "etcd://" + address + "?lease=" + LEASE.toSeconds() + "s");
        }
        String rawName = raw.label();
        List<double[]> rows = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            boolean rawFirst = round % 2 == 0;
            Subject first = rawFirst ? raw : locksmith;
            Subject second = rawFirst ? locksmith : raw;
            Map<String, Double> u1 = scenarios.uncontended(first, "u-" + round + "-a");
            Map<String, Double> u2 = scenarios.uncontended(second, "u-" + round + "-b");
            Map<String, Double> c1 = scenarios.contended(first, "c-" + round + "-a");
            Map<String, Double> c2 = scenarios.contended(second, "c-" + round + "-b");
            Map<String, Double> ur = rawFirst ? u1 : u2, ul = rawFirst ? u2 : u1;
            Map<String, Double> cr = rawFirst ? c1 : c2, cl = rawFirst ? c2 : c1;
            double[] row = {ul.get("p50_us") / ur.get("p50_us"),
                    cl.get("acquisitions_per_s") / cr.get("acquisitions_per_s"),
                    cl.get("handoff_p50_us") / cr.get("handoff_p50_us"), ur.get("p50_us"), ul.get("p50_us"),
                    cr.get("acquisitions_per_s"), cl.get("acquisitions_per_s"), cl.get("handoff_p99_us")};
            rows.add(row);
            System.out.printf("round %d: uncontended p50 x %.2f (%s %.0f us, Locksmith %.0f us);"
                    + " contended acq/s x %.2f (%s %.0f, Locksmith %.0f); handoff p50 x %.2f, Locksmith's p99 %.0f us%n",
                    round, row[0], rawName, row[3], row[4], row[1], rawName, row[5], row[6], row[2], row[7]);
        }
        System.out.printf("median: uncontended p50 x %.2f, contended acq/s x %.2f, handoff p50 x %.2f,"
                        + " Locksmith's handoff p99 %.0f us%n",
                median(rows, 0), median(rows, 1), median(rows, 2), median(rows, 7));
        System.exit(0);
    }

    private static double median(List<double[]> rows, int column) {
        double[] values = rows.stream().mapToDouble(r -> r[column]).sorted().toArray();
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }
}
