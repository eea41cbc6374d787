package io.locksmith.bench;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The Redis server's time per uncontended acquire + release of the lock scripts, beside the minimal protocol's
 * ({@code SET NX PX} + a Lua compare-and-delete), sent by hand over one Jedis connection back to back, in interleaved
 * rounds: the same client and the same pace for every variant, so that {@code INFO commandstats} compares the server's
 * work alone (the bench's uncontended column also carries each client's pace: a request to an idle server costs it
 * more). Not part of the bench's tables.
 *
 * <pre>java -cp bench/target/locksmith-bench.jar io.locksmith.bench.RedisScriptCost 127.0.0.1:6379 [rounds] [pairs]
 *     [DIR ...]</pre>
 *
 * <p>Each {@code DIR} holds another version of {@code handoff.lua}, {@code acquire.lua} and {@code release.lua} (e.g.
 * {@code git show main:backend-redis/src/main/resources/io/locksmith/redis/acquire.lua}), measured beside the jar's
 * own; a version whose acquire takes a fifth argument (the release channel, before issue 35) gets it. Prints each
 * variant's median server µs per pair and its ratio to the minimal protocol (median and quartiles of the per-round
 * ratios).
 */
public final class RedisScriptCost {

    private static final String COMPARE_AND_DELETE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

    private RedisScriptCost() {
    }

    public static void main(String[] args) throws Exception {
        String[] hostPort = args[0].split(":");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 21;
        int pairs = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
        Map<String, String[]> versions = new LinkedHashMap<>();
        versions.put("minimal", null);
        versions.put("jar", new String[] {resource("handoff"), resource("acquire"), resource("release")});
        for (int i = 3; i < args.length; i++) {
            Path dir = Path.of(args[i]);
            versions.put(args[i], new String[] {Files.readString(dir.resolve("handoff.lua")),
                    Files.readString(dir.resolve("acquire.lua")), Files.readString(dir.resolve("release.lua"))});
        }
        try (Jedis jedis = new Jedis(hostPort[0], Integer.parseInt(hostPort[1]));
             Jedis admin = new Jedis(hostPort[0], Integer.parseInt(hostPort[1]))) {
            Map<String, double[]> micros = new LinkedHashMap<>();
            long sequence = 0;
            for (int round = 0; round < rounds; round++) {
                for (Map.Entry<String, String[]> version : versions.entrySet()) {
                    String[] scripts = version.getValue();
                    boolean minimal = scripts == null;
                    String acquire = minimal ? jedis.scriptLoad(COMPARE_AND_DELETE) : jedis.scriptLoad(scripts[0] + scripts[1]);
                    String release = minimal ? null : jedis.scriptLoad(scripts[0] + scripts[2]);
                    boolean channelArgument = !minimal && scripts[1].contains("ARGV[5]");
                    String key = "locksmith:{script-cost-" + version.getKey().hashCode() + "}";
                    List<String> acquireKeys = List.of(key, key + ":fence", key + ":abandoned:x", key + ":queue",
                            key + ":waiting");
                    List<String> releaseKeys = List.of(key, key + ":fence", key + ":queue", key + ":waiting");
                    String holder = "0123456789abcdef0123456789abcdef|12345@host.example|main|1|";
                    for (int pass = 0; pass < 2; pass++) { // the first pass warms up, the second is measured
                        if (pass == 1) {
                            admin.configResetStat();
                        }
                        for (int i = 0; i < pairs; i++) {
                            if (minimal) {
                                String token = UUID.randomUUID().toString();
                                jedis.set(key, token, SetParams.setParams().nx().px(30_000));
                                jedis.evalsha(acquire, List.of(key), List.of(token));
                                continue;
                            }
                            String owner = "0123456789abcdef:" + (++sequence);
                            List<String> acquireArgs = new ArrayList<>(List.of(owner, holder, "30000", "10000"));
                            List<String> releaseArgs = new ArrayList<>(List.of(owner));
                            if (channelArgument) {
                                acquireArgs.add(key + ":released");
                                releaseArgs.add(key + ":released");
                            }
                            Object granted = jedis.evalsha(acquire, acquireKeys, acquireArgs);
                            if (!(granted instanceof List<?> reply) || !Long.valueOf(1).equals(reply.get(0))) {
                                throw new IllegalStateException(version.getKey() + ": not granted: " + granted);
                            }
                            if (!Long.valueOf(1).equals(jedis.evalsha(release, releaseKeys, releaseArgs))) {
                                throw new IllegalStateException(version.getKey() + ": not released");
                            }
                        }
                    }
                    double perPair = RedisServerCost.topLevelMicros(admin.info("commandstats"),
                            minimal ? Set.of("set") : Set.of()) / pairs;
                    micros.computeIfAbsent(version.getKey(), v -> new double[rounds])[round] = perPair;
                }
            }
            double[] base = micros.get("minimal");
            for (Map.Entry<String, double[]> variant : micros.entrySet()) {
                double[] ratios = new double[rounds];
                for (int i = 0; i < rounds; i++) {
                    ratios[i] = variant.getValue()[i] / base[i];
                }
                double[] sorted = variant.getValue().clone();
                Arrays.sort(sorted);
                Arrays.sort(ratios);
                System.out.printf(Locale.ROOT, "%-40s %6.2f µs per pair (median of %d rounds), %5.2f× minimal (%.2f-%.2f)%n",
                        variant.getKey(), sorted[rounds / 2], rounds, ratios[rounds / 2], ratios[rounds / 4],
                        ratios[3 * rounds / 4]);
            }
        }
    }

    private static String resource(String name) {
        // The backend is on the bench jar's class path at run time only: its scripts are read as resources.
        try (InputStream in = RedisScriptCost.class.getClassLoader()
                .getResourceAsStream("io/locksmith/redis/" + name + ".lua")) {
            if (in == null) {
                throw new IllegalStateException(name + ".lua is not in the bench jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
