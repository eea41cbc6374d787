package io.locksmith.bench;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.params.SetParams;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The uncontended acquire + release hot path of Locksmith over Jedis, taken apart: the same loop as the bench's
 * uncontended scenario, for several variants that each add one part of what Locksmith does to the raw minimal
 * protocol, measured in interleaved rounds (so that the load of a shared machine falls on every variant alike).
 * Meant to be run under JFR as well ({@code -XX:StartFlightRecording}). Not part of the bench's tables.
 *
 * <pre>java -cp bench/target/locksmith-bench.jar io.locksmith.bench.HotPath 127.0.0.1:6379 [rounds] [seconds per round]</pre>
 *
 * <p>With {@code -Dhotpath.many=true} it runs the bench's many-names scenario instead (32 threads on one client,
 * 10,000 names), for the raw minimal protocol and Locksmith over Jedis in interleaved rounds, and reports, besides
 * operations per second, the CPU time per operation of this JVM and, given {@code -Dhotpath.serverPid=PID}, of the
 * Redis server: on a 2-core machine the scenario is CPU bound, so that is where its difference goes.
 */
public final class HotPath {

    private HotPath() {
    }

    interface Pair {
        void acquireAndRelease(String name) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        String[] hostPort = args[0].split(":");
        HostAndPort address = new HostAndPort(hostPort[0], Integer.parseInt(hostPort[1]));
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 2;
        String only = System.getProperty("hotpath.only", "");
        if (Boolean.getBoolean("hotpath.many")) {
            manyNames(address, args[0], rounds, seconds, Long.getLong("hotpath.serverPid", -1), only);
            return;
        }

        Map<String, Pair> variants = new LinkedHashMap<>();
        List<AutoCloseable> toClose = new ArrayList<>();
        JedisPooled jedis = new JedisPooled(address, DefaultJedisClientConfig.builder().timeoutMillis(2000).build());
        toClose.add(jedis);
        String compareAndDelete = jedis.scriptLoad(JedisSetNxSubject.COMPARE_AND_DELETE);
        SetParams px = SetParams.setParams().nx().px(30_000);
        variants.put("raw: SET NX PX + Lua compare-and-delete", name -> {
            String token = UUID.randomUUID().toString();
            if (!"OK".equals(jedis.set(name, token, px))) {
                throw new IllegalStateException("taken: " + name);
            }
            jedis.evalsha(compareAndDelete, List.of(name), List.of(token));
        });
        // Locksmith's own scripts sent by hand over the same pool: the store's share of the difference.
        String acquire = jedis.scriptLoad(script("acquire.lua"));
        String release = jedis.scriptLoad(script("release.lua"));
        String holder = io.locksmith.spi.HolderCodec.encode(
                new io.locksmith.HolderIdentity("0123456789abcdef", "1234@host", "main", 1, null));
        long[] sequence = {0};
        variants.put("raw: Locksmith's acquire.lua + release.lua", name -> {
            String owner = "0123456789abcdef:" + (++sequence[0]);
            String key = "locksmith:{" + name + "}";
            Object granted = jedis.evalsha(acquire, List.of(key, key + ":fence",
                    key + ":abandoned:" + owner), List.of(owner, holder, "30000"));
            if (!(granted instanceof List<?> list) || !Long.valueOf(1).equals(list.get(0))) {
                throw new IllegalStateException("not granted: " + granted);
            }
            jedis.evalsha(release, List.of(key), List.of(owner, key + ":released"));
        });
        for (String uri : new String[] {
                "redis://" + args[0] + "?client=jedis",
                "mem://hotpath"}) {
            LockClient client = LockClient.open(uri);
            toClose.add(client);
            variants.put("Locksmith " + uri + " tryAcquire(10s)", name -> {
                Lease lease = client.lock(name).tryAcquire(Duration.ofSeconds(10))
                        .orElseThrow(() -> new IllegalStateException("not acquired: " + name));
                lease.close();
            });
            variants.put("Locksmith " + uri + " tryAcquire()", name -> {
                Lease lease = client.lock(name).tryAcquire()
                        .orElseThrow(() -> new IllegalStateException("not acquired: " + name));
                lease.close();
            });
        }
        variants.keySet().removeIf(label -> !label.contains(only));

        Map<String, List<Double>> p50s = new LinkedHashMap<>();
        Map<String, List<Double>> p99s = new LinkedHashMap<>();
        Map<String, List<Double>> bytesPerOp = new LinkedHashMap<>();
        variants.keySet().forEach(label -> {
            p50s.put(label, new ArrayList<>());
            p99s.put(label, new ArrayList<>());
            bytesPerOp.put(label, new ArrayList<>());
        });
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().getId();
        // Warm-up: every variant, long enough for the JIT.
        for (Map.Entry<String, Pair> variant : variants.entrySet()) {
            run(variant.getValue(), "warm-" + Math.abs(variant.getKey().hashCode()), 2);
        }
        for (int round = 0; round < rounds; round++) {
            for (Map.Entry<String, Pair> variant : variants.entrySet()) {
                long allocatedBefore = threads.getThreadAllocatedBytes(self);
                Histogram histogram = run(variant.getValue(), "hot-" + Math.abs(variant.getKey().hashCode()), seconds);
                // This thread's allocations only: with calls handed to pool threads, theirs are not counted.
                double allocated = threads.getThreadAllocatedBytes(self) - allocatedBefore;
                p50s.get(variant.getKey()).add(histogram.getValueAtPercentile(50) / 1000.0);
                p99s.get(variant.getKey()).add(histogram.getValueAtPercentile(99) / 1000.0);
                bytesPerOp.get(variant.getKey()).add(allocated / Math.max(1, histogram.getTotalCount()));
            }
        }
        double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        System.out.printf(Locale.ROOT, "p50 of acquire+release in µs, %d rounds of %.1f s, load average %.2f at the end%n",
                rounds, seconds, load);
        for (String label : p50s.keySet()) {
            List<Double> values = sorted(p50s.get(label));
            System.out.printf(Locale.ROOT, "%-60s p50 median %7.1f (range %7.1f - %7.1f), p99 median %8.1f,"
                            + " %6.0f bytes/op on the calling thread%n", label, median(values), values.get(0),
                    values.get(values.size() - 1), median(sorted(p99s.get(label))), median(sorted(bytesPerOp.get(label))));
        }
        for (AutoCloseable closeable : toClose) {
            closeable.close();
        }
    }

    /** The bench's many-names scenario, raw and Locksmith alternating, with the CPU each spends per operation. */
    private static void manyNames(HostAndPort address, String hostPort, int rounds, double seconds, long serverPid,
                                  String only) throws Exception {
        Duration window = Duration.ofMillis((long) (seconds * 1000));
        BenchConfig config = BenchConfig.quick().withTimes(Duration.ofMillis(500), window);
        Scenarios scenarios = new Scenarios(config);
        Duration lease = Duration.ofSeconds(30);
        Map<String, Subject> subjects = new LinkedHashMap<>();
        subjects.put("raw: Jedis SET NX PX (20 ms retry when taken)",
                new JedisSetNxSubject("raw", address, lease, Duration.ofMillis(20)));
        subjects.put("Locksmith over Jedis", new LocksmithSubject("Locksmith", Store.REDIS,
                threads -> "redis://" + hostPort + "?client=jedis&poolSize=" + Subjects.jedisPoolSize(threads) + "&lease="
                        + lease.toMillis() + "ms"));
        subjects.keySet().removeIf(label -> !label.contains(only));
        Map<String, List<Double>> opsPerSecond = new LinkedHashMap<>();
        Map<String, List<Double>> clientMicros = new LinkedHashMap<>();
        Map<String, List<Double>> serverMicros = new LinkedHashMap<>();
        subjects.keySet().forEach(label -> {
            opsPerSecond.put(label, new ArrayList<>());
            clientMicros.put(label, new ArrayList<>());
            serverMicros.put(label, new ArrayList<>());
        });
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        // Warm-up: every subject once, unmeasured, so that class loading and the JIT's threads are not counted.
        for (Subject subject : subjects.values()) {
            scenarios.manyNames(subject, "many-warm-");
        }
        for (int round = 0; round < rounds; round++) {
            for (Map.Entry<String, Subject> subject : subjects.entrySet()) {
                long cpuBefore = os.getProcessCpuTime();
                long serverBefore = serverCpuNanos(serverPid);
                Map<String, Double> metrics = scenarios.manyNames(subject.getValue(), "many-" + round + "-");
                // The whole scenario's CPU (its warm-up too, and opening the client) over the measured operations:
                // an upper bound, the same for both.
                double ops = metrics.get("ops") * (window.toNanos() + config.warmup().toNanos()) / window.toNanos();
                opsPerSecond.get(subject.getKey()).add(metrics.get("ops_per_s"));
                clientMicros.get(subject.getKey()).add((os.getProcessCpuTime() - cpuBefore) / 1000.0 / ops);
                serverMicros.get(subject.getKey()).add((serverCpuNanos(serverPid) - serverBefore) / 1000.0 / ops);
            }
        }
        double load = os.getSystemLoadAverage();
        System.out.printf(Locale.ROOT, "many names, %d threads, %d names: %d rounds of %.1f s, load average %.2f at the end%n",
                config.manyThreads(), config.names(), rounds, seconds, load);
        for (String label : subjects.keySet()) {
            List<Double> values = sorted(opsPerSecond.get(label));
            System.out.printf(Locale.ROOT, "%-50s ops/s median %8.0f (range %8.0f - %8.0f), CPU per op: client %6.1f µs,"
                            + " server %6.1f µs%n", label, median(values), values.get(0), values.get(values.size() - 1),
                    median(sorted(clientMicros.get(label))), median(sorted(serverMicros.get(label))));
        }
    }

    /** The CPU time (user + system) the process {@code pid} has used, from /proc; 0 without a pid. */
    private static long serverCpuNanos(long pid) throws IOException {
        if (pid < 0) {
            return 0;
        }
        String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime (fields 14, 15)
        return ticks * 10_000_000L; // USER_HZ is 100 on Linux
    }

    private static List<Double> sorted(List<Double> values) {
        List<Double> copy = new ArrayList<>(values);
        copy.sort(Double::compare);
        return copy;
    }

    private static double median(List<Double> sorted) {
        return sorted.get(sorted.size() / 2);
    }

    private static Histogram run(Pair pair, String name, double seconds) throws Exception {
        Histogram histogram = new Histogram(3_600_000_000L, 3);
        long end = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < end) {
            long start = System.nanoTime();
            pair.acquireAndRelease(name);
            histogram.recordValue(System.nanoTime() - start);
        }
        return histogram;
    }

    private static String script(String file) throws IOException {
        // The Redis backend is a runtime dependency of the bench: its scripts are read as resources, and its key
        // names ("locksmith:{name}", ...) are written out above.
        try (InputStream in = HotPath.class.getClassLoader().getResourceAsStream("io/locksmith/redis/" + file)) {
            if (in == null) {
                throw new IOException("no " + file + " next to the Redis backend");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
