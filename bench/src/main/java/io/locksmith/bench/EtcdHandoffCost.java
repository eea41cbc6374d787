package io.locksmith.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where an etcd handoff's time goes (issue 35, item 4): the contended scenario (8 threads, a client each) for jetcd's
 * {@code Lock} and Locksmith, alternating, against one etcd, with etcd's own counters read before and after each
 * ({@code /metrics}): requests by gRPC method, raft proposals committed (each write is one: a raft commit and a WAL
 * fsync), WAL fsyncs and their mean time, backend commits, and watch events sent; all per acquisition. Then the
 * disk's write round trip as etcd sees it: the mean WAL fsync and backend commit time, and a put's round trip.
 * <pre>
 * java -cp bench/target/locksmith-bench.jar io.locksmith.bench.EtcdHandoffCost 127.0.0.1:2379 [rounds 2] [hold ms 0] [think ms 0]
 * </pre>
 */
public final class EtcdHandoffCost {

    private static final List<String> COUNTERS = List.of("acquisitions_per_s", "handoff_p50_us", "handoff_p99_us");

    private EtcdHandoffCost() {
    }

    public static void main(String[] args) throws Exception {
        String address = args[0];
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        Duration hold = Duration.ofMillis(args.length > 2 ? Long.parseLong(args[2]) : 0);
        Duration think = Duration.ofMillis(args.length > 3 ? Long.parseLong(args[3]) : 0);
        BenchConfig config = BenchConfig.quick().withTimes(Duration.ofSeconds(1), Duration.ofSeconds(3))
                .withContention(hold, think);
        Scenarios scenarios = new Scenarios(config);
        Subject jetcd = new JetcdSubject("jetcd Lock, a lease per thread", "http://" + address,
                JetcdSubject.LeaseMode.PER_THREAD, Duration.ofSeconds(30));
        Subject locksmith = new LocksmithSubject("Locksmith over jetcd", Store.ETCD, "etcd://" + address + "?lease=30s");
        System.out.printf(Locale.ROOT, "etcd %s, hold %d ms, think up to %d ms, load %s%n", address, hold.toMillis(),
                think.toMillis(), BenchMain.loadAverage());
        for (int round = 0; round < rounds; round++) {
            for (Subject subject : round % 2 == 0 ? List.of(jetcd, locksmith) : List.of(locksmith, jetcd)) {
                java.util.concurrent.atomic.AtomicLong counted = new java.util.concurrent.atomic.AtomicLong();
                Map<String, Double> before = metrics(address);
                Map<String, Double> run = scenarios.contended(counting(subject, counted),
                        "cost-" + round + "-" + subject.label().length());
                Map<String, Double> after = metrics(address);
                // The scenario reports acquisitions of its measured window only; etcd counts warm-up and tear-down too:
                // divide etcd's counts by every acquisition of the run, warm-up included.
                double seconds = (after.get("time") - before.get("time"));
                double acquisitions = counted.get();
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-32s", subject.label()));
                for (String key : COUNTERS) {
                    line.append(String.format(Locale.ROOT, " %s=%.0f", key, run.get(key)));
                }
                line.append(String.format(Locale.ROOT, " | per acquisition (%,.0f in %.1f s, opening and closing"
                        + " the clients included):", acquisitions, seconds));
                after.forEach((key, value) -> {
                    if (!key.equals("time") && !key.endsWith("_sum") && value - before.getOrDefault(key, 0.0) > 0) {
                        line.append(String.format(Locale.ROOT, " %s=%.2f", key,
                                (value - before.getOrDefault(key, 0.0)) / acquisitions));
                    }
                });
                double fsyncs = after.get("wal_fsync_count") - before.get("wal_fsync_count");
                double commits = after.get("backend_commit_count") - before.get("backend_commit_count");
                line.append(String.format(Locale.ROOT, " | mean WAL fsync %.0f µs, mean backend commit %.0f µs",
                        1e6 * (after.get("wal_fsync_sum") - before.get("wal_fsync_sum")) / fsyncs,
                        1e6 * (after.get("backend_commit_sum") - before.get("backend_commit_sum")) / commits));
                System.out.println(line);
            }
        }
        // The write round trip, and what the disk takes of it: 2,000 puts one after the other.
        try (io.etcd.jetcd.Client client = io.etcd.jetcd.Client.builder().endpoints("http://" + address).build()) {
            io.etcd.jetcd.ByteSequence key = io.etcd.jetcd.ByteSequence.from("cost-put",
                    java.nio.charset.StandardCharsets.UTF_8);
            for (int i = 0; i < 200; i++) {
                client.getKVClient().put(key, key).get(10, java.util.concurrent.TimeUnit.SECONDS);
            }
            Map<String, Double> before = metrics(address);
            org.HdrHistogram.Histogram put = Scenarios.histogram();
            for (int i = 0; i < 2_000; i++) {
                long start = System.nanoTime();
                client.getKVClient().put(key, key).get(10, java.util.concurrent.TimeUnit.SECONDS);
                put.recordValue(System.nanoTime() - start);
            }
            Map<String, Double> after = metrics(address);
            double fsyncs = after.get("wal_fsync_count") - before.get("wal_fsync_count");
            System.out.printf(Locale.ROOT, "put round trip p50 %.0f µs, p99 %.0f µs; during it %.2f WAL fsyncs per put,"
                            + " mean WAL fsync %.0f µs; load %s%n", put.getValueAtPercentile(50) / 1e3,
                    put.getValueAtPercentile(99) / 1e3, fsyncs / 2_000,
                    1e6 * (after.get("wal_fsync_sum") - before.get("wal_fsync_sum")) / fsyncs, BenchMain.loadAverage());
        }
        System.exit(0);
    }

    /** {@code subject}, counting every acquisition of its contenders in {@code counted}. */
    private static Subject counting(Subject subject, java.util.concurrent.atomic.AtomicLong counted) {
        return new Subject() {
            @Override
            public String label() {
                return subject.label();
            }

            @Override
            public Store store() {
                return subject.store();
            }

            @Override
            public boolean isLocksmith() {
                return subject.isLocksmith();
            }

            @Override
            public Contender open(int threads) throws Exception {
                Contender contender = subject.open(threads);
                return new Contender() {
                    @Override
                    public Held acquire(String name, Duration maxWait) throws Exception {
                        Held held = contender.acquire(name, maxWait);
                        counted.incrementAndGet();
                        return held;
                    }

                    @Override
                    public void close() throws Exception {
                        contender.close();
                    }
                };
            }
        };
    }

    /** The counters of etcd's {@code /metrics} this tool reads, with the wall clock in seconds as {@code time}. */
    static Map<String, Double> metrics(String address) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        String text = http.send(HttpRequest.newBuilder(URI.create("http://" + address + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Map<String, Double> found = new LinkedHashMap<>();
        found.put("time", System.nanoTime() / 1e9);
        for (String line : text.split("\n")) {
            if (line.startsWith("#")) {
                continue;
            }
            double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            if (line.startsWith("grpc_server_handled_total{") && line.contains("grpc_type=\"unary\"")) {
                String method = line.replaceAll(".*grpc_method=\"([^\"]+)\".*", "$1");
                found.merge("unary_" + method, value, Double::sum);
            } else if (line.startsWith("grpc_server_msg_received_total{") && line.contains("grpc_type=\"bidi_stream\"")) {
                String method = line.replaceAll(".*grpc_method=\"([^\"]+)\".*", "$1");
                found.merge("stream_msgs_in_" + method, value, Double::sum);
            } else if (line.startsWith("etcd_server_proposals_committed_total ")) {
                found.put("raft_proposals_committed", value);
            } else if (line.startsWith("etcd_disk_wal_fsync_duration_seconds_count")) {
                found.put("wal_fsync_count", value);
            } else if (line.startsWith("etcd_disk_wal_fsync_duration_seconds_sum")) {
                found.put("wal_fsync_sum", value);
            } else if (line.startsWith("etcd_disk_backend_commit_duration_seconds_count")) {
                found.put("backend_commit_count", value);
            } else if (line.startsWith("etcd_disk_backend_commit_duration_seconds_sum")) {
                found.put("backend_commit_sum", value);
            } else if (line.startsWith("etcd_debugging_mvcc_events_total ")) {
                found.put("watch_events_sent", value);
            }
        }
        return found;
    }
}
