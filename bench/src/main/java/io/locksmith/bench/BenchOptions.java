package io.locksmith.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The command line of the bench.
 * <pre>
 * java -jar bench/target/locksmith-bench.jar [--quick] [--runs 3] [--stores redis,zookeeper,etcd,postgres,mem,sentinel]
 *     [--scenarios uncontended,contended,many-names,renewal,hot-lock,async-overhead,
 *     rw-read-heavy,semaphore,leader-failover] [--only TEXT] [--warmup 2s] [--measure 5s]
 *     [--contended-hold 1ms] [--contended-think 20ms] [--renewal-hold 60s] [--renewal-lease 30s]
 *     [--renewal-locks 10000] [--hot-waiters 8,100,1000] [--hot-virtual 10000] [--hot-measure 10s]
 *     [--hot-wait 10s] [--hot-hold 1ms] [--failover-rounds 10] [--crash-rounds 5] [--out bench/results]
 *     [--update-doc docs/PERFORMANCE.md] [--network-delay 100us]
 * </pre>
 */
record BenchOptions(BenchConfig config, boolean quick, Set<Store> stores, Set<Scenario> scenarios, String only,
                    Path out, Path updateDoc, String commandLine, int runs, HotLock.Settings hotLock,
                    PrimitiveScenarios.Settings primitives, Duration networkDelay) {

    static final String USAGE = """
            usage: java -jar bench/target/locksmith-bench.jar [options]
              --quick                    short windows (about 4 minutes with every store) instead of the full run (about 12)
              --runs N                   runs of every scenario, one after the other in this command (default 3):
                                         the tables show each figure's median and range, ratios taken within each run
              --stores LIST              comma-separated: redis,zookeeper,etcd,postgres,mem,sentinel (default redis,zookeeper,etcd,postgres)
              --scenarios LIST           comma-separated: uncontended,contended,many-names,renewal (the default),
                                         hot-lock, async-overhead, rw-read-heavy, semaphore,
                                         leader-failover (only when named)
              --only TEXT                only subjects whose label contains TEXT (case-insensitive), plus baselines
              --warmup D / --measure D   per subject and scenario, e.g. 2s, 500ms
              --contended-hold D         how long a contended holder keeps the lock (default 1ms)
              --contended-think D        a contended thread's other work between two needs of the lock, random
                                         up to this (default 20ms); 0ms with a 0ms hold: the lock is the bottleneck
              --contended-retake         a contended thread needs the lock again at once after its release, rather than
                                         only once another thread has had it (issue 35's PostgreSQL scenario)
              --renewal-hold D           how long the renewal scenario holds its locks (full 60s, quick 12s)
              --renewal-lease D          lease (watchdog timeout, TTL) of the renewed locks (full 30s, quick 6s)
              --renewal-locks N          locks held in the renewal scenario (default 10000)
              --hot-waiters LIST         hot lock: the platform-thread counts on one name (default 8,100,1000)
              --hot-virtual N            hot lock: virtual threads of the last count, on Java 21+ (default 10000;
                                         0: none; on Java 17 the report says they were not run)
              --hot-measure D            hot lock: the measured window of each count (full 10s, quick 4s)
              --hot-wait D               hot lock: each acquire's bound (default 10s)
              --hot-hold D               hot lock: how long a holder keeps the lock (default 1ms)
              --failover-rounds N        leader failover: rounds with the leader's client closed (full 10, quick 5)
              --crash-rounds N           leader failover: rounds with the leader's client cut off, each about a
                                         lease long (full 5, quick 3; 0: none)
              --out DIR                  where latest.md, latest.json and the charts (latest-*.png) go
                                         (default bench/results)
              --update-doc FILE          also put the results between the results markers of FILE
                                         (docs/PERFORMANCE.md)
              --network-delay D          every client (Locksmith, the peers, the round trips) reaches each server
                                         through one delaying proxy that adds D each way, e.g. 100us (a 0.2 ms
                                         round trip, as in a data centre); default none: loopback
            or:    java -jar bench/target/locksmith-bench.jar --charts-from RESULTS.json [...]
                                         redraw the charts of results files next to them; runs nothing
            or:    java -jar bench/target/locksmith-bench.jar --goals [--runs N] [--out DIR] [--update-doc FILE]
                                         issue 35's goals: the three configurations they are judged in, one after
                                         the other, and goals.md, one row per goal (default out bench/results/goals)
            """;

    static BenchOptions parse(String... args) {
        boolean quick = false;
        Set<Store> stores = EnumSet.of(Store.REDIS, Store.ZOOKEEPER, Store.ETCD, Store.POSTGRES);
        Set<Scenario> scenarios = EnumSet.of(Scenario.UNCONTENDED, Scenario.CONTENDED, Scenario.MANY_NAMES, Scenario.RENEWAL);
        String only = null;
        Path out = Path.of("bench", "results");
        Path updateDoc = null;
        Duration warmup = null;
        Duration measure = null;
        Duration renewalHold = null;
        Duration renewalLease = null;
        Integer renewalLocks = null;
        Duration contendedHold = null;
        Duration contendedThink = null;
        boolean contendedRetake = false;
        int runs = 3;
        List<Integer> hotWaiters = null;
        Integer hotVirtual = null;
        Duration hotMeasure = null;
        Duration hotWait = null;
        Duration hotHold = null;
        Integer failoverRounds = null;
        Integer crashRounds = null;
        Duration networkDelay = Duration.ZERO;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--quick" -> quick = true;
                case "--runs" -> runs = positiveInt(value(args, ++i, arg), arg);
                case "--stores" -> stores = stores(value(args, ++i, arg));
                case "--scenarios" -> scenarios = scenarios(value(args, ++i, arg));
                case "--only" -> only = value(args, ++i, arg).toLowerCase(Locale.ROOT);
                case "--warmup" -> warmup = duration(value(args, ++i, arg), arg);
                case "--measure" -> measure = duration(value(args, ++i, arg), arg);
                case "--contended-hold" -> contendedHold = durationOrZero(value(args, ++i, arg), arg);
                case "--contended-think" -> contendedThink = durationOrZero(value(args, ++i, arg), arg);
                case "--contended-retake" -> contendedRetake = true;
                case "--renewal-hold" -> renewalHold = duration(value(args, ++i, arg), arg);
                case "--renewal-lease" -> renewalLease = duration(value(args, ++i, arg), arg);
                case "--renewal-locks" -> renewalLocks = positiveInt(value(args, ++i, arg), arg);
                case "--hot-waiters" -> hotWaiters = counts(value(args, ++i, arg), arg);
                case "--hot-virtual" -> hotVirtual = nonNegativeInt(value(args, ++i, arg), arg);
                case "--hot-measure" -> hotMeasure = duration(value(args, ++i, arg), arg);
                case "--hot-wait" -> hotWait = duration(value(args, ++i, arg), arg);
                case "--hot-hold" -> hotHold = durationOrZero(value(args, ++i, arg), arg);
                case "--failover-rounds" -> failoverRounds = positiveInt(value(args, ++i, arg), arg);
                case "--crash-rounds" -> crashRounds = nonNegativeInt(value(args, ++i, arg), arg);
                case "--out" -> out = Path.of(value(args, ++i, arg));
                case "--update-doc" -> updateDoc = Path.of(value(args, ++i, arg));
                case "--network-delay" -> networkDelay = durationOrZero(value(args, ++i, arg), arg);
                default -> throw new IllegalArgumentException("unknown option '" + arg + "'\n" + USAGE);
            }
        }
        BenchConfig config = quick ? BenchConfig.quick() : BenchConfig.full();
        config = config.withTimes(warmup == null ? config.warmup() : warmup, measure == null ? config.measure() : measure);
        config = config.withContention(contendedHold == null ? config.hold() : contendedHold,
                contendedThink == null ? config.thinkMax() : contendedThink).withRetake(contendedRetake);
        config = config.withRenewal(renewalHold == null ? config.renewalHold() : renewalHold,
                renewalLease == null ? config.renewalLease() : renewalLease,
                renewalLocks == null ? config.renewalLocks() : renewalLocks);
        if (config.renewalLease().toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("--renewal-lease must be whole seconds (etcd leases are), was "
                    + config.renewalLease());
        }
        HotLock.Settings hotLock = quick ? HotLock.Settings.quick() : HotLock.Settings.full();
        if (warmup != null) {
            hotLock = hotLock.withWarmup(warmup);
        }
        hotLock = hotLock.with(hotWaiters == null ? hotLock.waiters() : hotWaiters,
                hotVirtual == null ? hotLock.virtualThreads() : hotVirtual,
                hotMeasure == null ? hotLock.measure() : hotMeasure, hotWait == null ? hotLock.maxWait() : hotWait,
                hotHold == null ? hotLock.hold() : hotHold);
        PrimitiveScenarios.Settings primitives = PrimitiveScenarios.Settings.of(config,
                failoverRounds != null ? failoverRounds : quick ? 5 : 10, crashRounds != null ? crashRounds : quick ? 3 : 5);
        return new BenchOptions(config, quick, stores, scenarios, only, out, updateDoc, String.join(" ", args),
                runs, hotLock, primitives, networkDelay);
    }

    /** Whether a subject runs: every baseline does, others only if they match {@code --only}. */
    boolean includes(Subjects.Entry entry) {
        return only == null || entry.baseline() || entry.subject().label().toLowerCase(Locale.ROOT).contains(only);
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length) {
            throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
        }
        return args[index];
    }

    private static Set<Store> stores(String list) {
        Set<Store> stores = EnumSet.noneOf(Store.class);
        for (String name : split(list)) {
            try {
                stores.add(Store.valueOf(name.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown store '" + name + "'; known: redis, zookeeper, etcd, postgres, mem", e);
            }
        }
        return stores;
    }

    private static Set<Scenario> scenarios(String list) {
        Set<Scenario> scenarios = EnumSet.noneOf(Scenario.class);
        for (String name : split(list)) {
            try {
                Scenario scenario = Scenario.valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
                if (scenario == Scenario.ROUND_TRIP) {
                    throw new IllegalArgumentException(name);
                }
                scenarios.add(scenario);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown scenario '" + name
                        + "'; known: uncontended, contended, many-names, renewal, hot-lock, async-overhead,"
                        + " rw-read-heavy, semaphore, leader-failover", e);
            }
        }
        return scenarios;
    }

    private static List<String> split(String list) {
        List<String> parts = new ArrayList<>();
        for (String part : list.split(",")) {
            if (!part.isBlank()) {
                parts.add(part.strip());
            }
        }
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("empty list '" + list + "'");
        }
        return parts;
    }

    static Duration duration(String text, String option) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        try {
            Duration d;
            if (t.endsWith("us") || t.endsWith("µs")) {
                d = Duration.ofNanos(1_000 * Long.parseLong(t.substring(0, t.length() - 2)));
            } else if (t.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            } else if (t.endsWith("s")) {
                d = Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
            } else if (t.endsWith("m")) {
                d = Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
            } else {
                throw new NumberFormatException();
            }
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(option + " must be positive, was '" + text + "'");
            }
            return d;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a duration such as 100us, 500ms, 20s or 1m, was '" + text
                    + "'", e);
        }
    }

    /** A duration as {@link #duration} takes it, or zero ({@code 0ms}, {@code 0s}, {@code 0}). */
    static Duration durationOrZero(String text, String option) {
        return text.strip().matches("0+(us|µs|ms|s|m)?") ? Duration.ZERO : duration(text, option);
    }

    private static List<Integer> counts(String list, String option) {
        List<Integer> counts = new ArrayList<>();
        for (String part : split(list)) {
            counts.add(positiveInt(part, option));
        }
        return counts;
    }

    private static int nonNegativeInt(String text, String option) {
        return text.strip().equals("0") ? 0 : positiveInt(text, option);
    }

    private static int positiveInt(String text, String option) {
        try {
            int value = Integer.parseInt(text.strip());
            if (value <= 0) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a positive number, was '" + text + "'", e);
        }
    }
}
