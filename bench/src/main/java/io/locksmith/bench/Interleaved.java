package io.locksmith.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Curator {@code InterProcessMutex} and Locksmith over ZooKeeper in alternating rounds, with the bench's own
 * uncontended and contended scenarios and subjects (quick windows): the load of a shared machine then falls on both
 * alike, and the median of the per-round ratios is steadier than one bench command's. Run it once per build to
 * compare two builds against the same server. Not part of the bench's tables (docs/PERFORMANCE.md, "ZooKeeper: calls
 * on the caller's thread").
 *
 * <pre>java -cp bench/target/locksmith-bench.jar io.locksmith.bench.ZkInterleaved 127.0.0.1:2181 8   # rounds</pre>
 */
public final class ZkInterleaved {

    private ZkInterleaved() {
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        int rounds = Integer.parseInt(args[1]);
        Scenarios scenarios = new Scenarios(BenchConfig.quick());
        Subject curator = new CuratorSubject("Curator", connect, Duration.ofSeconds(15));
        Subject locksmith = new LocksmithSubject("Locksmith", Store.ZOOKEEPER,
                "zookeeper://" + connect + "/bench-locksmith?sessionTimeout=15s&lease=30000ms");
        List<double[]> rows = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            boolean curatorFirst = round % 2 == 0;
            Subject first = curatorFirst ? curator : locksmith;
            Subject second = curatorFirst ? locksmith : curator;
            Map<String, Double> u1 = scenarios.uncontended(first, "u-" + round + "-a");
            Map<String, Double> u2 = scenarios.uncontended(second, "u-" + round + "-b");
            Map<String, Double> c1 = scenarios.contended(first, "c-" + round + "-a");
            Map<String, Double> c2 = scenarios.contended(second, "c-" + round + "-b");
            Map<String, Double> uc = curatorFirst ? u1 : u2, ul = curatorFirst ? u2 : u1;
            Map<String, Double> cc = curatorFirst ? c1 : c2, cl = curatorFirst ? c2 : c1;
            double[] row = {ul.get("p50_us") / uc.get("p50_us"),
                    cl.get("acquisitions_per_s") / cc.get("acquisitions_per_s"),
                    cl.get("handoff_p50_us") / cc.get("handoff_p50_us"), uc.get("p50_us"), ul.get("p50_us"),
                    cc.get("acquisitions_per_s"), cl.get("acquisitions_per_s")};
            rows.add(row);
            System.out.printf("round %d: uncontended p50 x %.2f (Curator %.0f us, Locksmith %.0f us);"
                    + " contended acq/s x %.2f (Curator %.0f, Locksmith %.0f); handoff p50 x %.2f%n",
                    round, row[0], row[3], row[4], row[1], row[5], row[6], row[2]);
        }
        System.out.printf("median: uncontended p50 x %.2f, contended acq/s x %.2f, handoff p50 x %.2f%n",
                median(rows, 0), median(rows, 1), median(rows, 2));
        System.exit(0);
    }

    private static double median(List<double[]> rows, int column) {
        double[] values = rows.stream().mapToDouble(r -> r[column]).sorted().toArray();
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }
}
