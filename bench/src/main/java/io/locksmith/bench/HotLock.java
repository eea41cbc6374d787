package io.locksmith.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The hot-lock scenario (issue 29): one application, that is one client, whose N threads loop on ONE lock name,
 * each {@code acquire(maxWait)}, hold, release, again, for a fixed time; N = 8, 100, 1,000 platform threads and
 * 10,000 virtual threads where the JVM has them. Reported per waiter count: acquisitions per second in the measured
 * window, the errors by kind, the waits that ran past their bound by more than {@link #PAST_BOUND}, the longest wait,
 * and overlaps of two holders (there must be none).
 *
 * <p>Every run is bounded: threads stop taking the lock when the window ends (or after
 * {@link Settings#maxAcquisitions()} acquisitions), each then finishes the acquire it is in, which its own bound ends;
 * a thread still inside an acquire {@link #DRAIN_SLACK} after that bound is counted as stuck (its wait so far counts
 * as past the bound) and interrupted. Every client is opened for 8 threads (pools of 8 connections) at every waiter
 * count: the configuration of the application stays, only its load changes.
 */
final class HotLock {

    /** A wait that ends more than this after its bound is counted as past the bound (issue 29). */
    static final Duration PAST_BOUND = Duration.ofSeconds(1);
    /** How long after a wait's bound the run waits for a thread to come back before counting it stuck. */
    static final Duration DRAIN_SLACK = Duration.ofSeconds(30);
    /** The threads every client is configured for, whatever the number of waiters. */
    static final int CLIENT_THREADS = 8;
    static final String TIMEOUT = "timed out";

    /**
     * @param waiters         the platform-thread counts, each a run, in order
     * @param virtualThreads  virtual threads of the last run (0: none); needs Java 21+
     * @param maxAcquisitions acquisitions after which a run stops even before its window ends
     */
    record Settings(List<Integer> waiters, int virtualThreads, Duration warmup, Duration measure, Duration maxWait,
                    Duration hold, long maxAcquisitions) {

        Settings {
            waiters = List.copyOf(waiters);
        }

        static Settings full() {
            return new Settings(List.of(8, 100, 1_000), 10_000, Duration.ofSeconds(2), Duration.ofSeconds(10),
                    Duration.ofSeconds(10), Duration.ofMillis(1), 1_000_000);
        }

        static Settings quick() {
            return new Settings(List.of(8, 100, 1_000), 10_000, Duration.ofSeconds(1), Duration.ofSeconds(4),
                    Duration.ofSeconds(10), Duration.ofMillis(1), 1_000_000);
        }

        Settings with(List<Integer> newWaiters, int newVirtual, Duration newMeasure, Duration newMaxWait, Duration newHold) {
            return new Settings(newWaiters, newVirtual, warmup, newMeasure, newMaxWait, newHold, maxAcquisitions);
        }

        Settings withWarmup(Duration newWarmup) {
            return new Settings(waiters, virtualThreads, newWarmup, measure, maxWait, hold, maxAcquisitions);
        }

        /** The metric prefix of each run: {@code w8_}, {@code w1000_}, {@code vt10000_}. */
        List<String> prefixes() {
            List<String> prefixes = new ArrayList<>();
            waiters.forEach(n -> prefixes.add(prefix(n, false)));
            if (virtualThreads > 0) {
                prefixes.add(prefix(virtualThreads, true));
            }
            return prefixes;
        }
    }

    /** The prefixes of the counts this JVM runs: the virtual threads' only where it has them. */
    List<String> prefixes() {
        List<String> prefixes = new ArrayList<>(settings.prefixes());
        if (settings.virtualThreads() > 0 && VirtualThreads.factory().isEmpty()) {
            prefixes.remove(prefixes.size() - 1);
        }
        return prefixes;
    }

    static String prefix(int threads, boolean virtual) {
        return (virtual ? "vt" : "w") + threads + "_";
    }

    private final Settings settings;

    HotLock(Settings settings) {
        this.settings = settings;
    }

    /**
     * Runs every waiter count on {@code subject}, one after the other, each on a fresh client and its own name. The
     * metrics of a count carry its prefix ({@link Settings#prefixes()}): {@code acquisitions_per_s},
     * {@code acquisitions}, {@code calls}, {@code timeouts}, {@code errors} (all kinds but time-outs),
     * {@code error.KIND} per kind, {@code past_bound}, {@code longest_wait_ms}, {@code stuck},
     * {@code exclusion_violations}, {@code threads_without_acquisition}, and {@code x_first}: the acquisitions/s over
     * those of the first (smallest) count in this same run. A count that could not run at all has
     * {@code failed} = 1 and its error under {@code error.KIND}.
     */
    Map<String, Double> run(Subject subject, String name) {
        Map<String, Double> metrics = new LinkedHashMap<>();
        Double first = null;
        List<int[]> runs = new ArrayList<>();
        settings.waiters().forEach(n -> runs.add(new int[]{n, 0}));
        if (settings.virtualThreads() > 0) {
            runs.add(new int[]{settings.virtualThreads(), 1});
        }
        for (int[] run : runs) {
            int threads = run[0];
            boolean virtual = run[1] == 1;
            String prefix = prefix(threads, virtual);
            Optional<ThreadFactory> factory = virtual ? VirtualThreads.factory()
                    : Optional.of(platformThreads());
            if (factory.isEmpty()) {
                continue; // the report says why: VirtualThreads.unavailableReason()
            }
            Map<String, Double> one;
            try {
                one = once(subject, name + "." + prefix.replace("_", ""), threads, factory.get());
            } catch (Exception | LinkageError e) {
                one = new LinkedHashMap<>();
                one.put("failed", 1.0);
                one.put("error." + kind(e), 1.0);
            } finally {
                Thread.interrupted(); // a failed run must not leave the next one interrupted
            }
            one.forEach((metric, value) -> metrics.put(prefix + metric, value));
            Double rate = one.get("acquisitions_per_s");
            if (rate != null && !virtual && threads == settings.waiters().get(0)) {
                first = rate;
            }
            if (rate != null && first != null) {
                metrics.put(prefix + "x_first", first == 0 ? Double.NaN : rate / first);
            }
        }
        return metrics;
    }

    private static ThreadFactory platformThreads() {
        AtomicInteger count = new AtomicInteger();
        return task -> new Thread(task, "bench-hot-" + count.getAndIncrement());
    }

    /**
     * One waiter count: {@code threads} threads from {@code factory} on one client and one name. It starts once the
     * store serves again ({@link #ready}): a run that overloaded it (a peer's 10,000 waiters, say) must not be
     * charged to the next.
     */
    Map<String, Double> once(Subject subject, String name, int threads, ThreadFactory factory) throws Exception {
        long settleStart = System.nanoTime();
        Subject.Contender contender = ready(subject, name + ".ready");
        double settled = (System.nanoTime() - settleStart) / 1e9;
        try (contender) {
            Map<String, Double> metrics = new Run(name, threads).execute(contender, factory);
            metrics.put("settle_s", settled);
            return metrics;
        }
    }

    /** How long {@link #ready} waits for a store that refuses or crawls before the count fails. */
    static final Duration SETTLE_LIMIT = Duration.ofSeconds(60);

    /**
     * A client of {@code subject} that has just taken and released a free lock within a second: opening and probing
     * again, up to {@link #SETTLE_LIMIT}, while the store is still busy with the previous run's leftovers (etcd
     * answering "too many requests", a ZooKeeper server deleting thousands of sessions' nodes).
     */
    static Subject.Contender ready(Subject subject, String probeName) throws Exception {
        long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            Subject.Contender contender = null;
            try {
                contender = subject.open(CLIENT_THREADS);
                long start = System.nanoTime();
                contender.acquire(probeName, Duration.ofSeconds(1)).release();
                if (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1)) {
                    return contender;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw e;
            } catch (Exception e) {
                last = e;
            }
            if (contender != null) {
                contender.close();
            }
            TimeUnit.MILLISECONDS.sleep(500); // the store is catching up: nothing to await but time
        }
        throw new IllegalStateException(subject.label() + ": the store did not serve a free lock within a second for "
                + SETTLE_LIMIT.toSeconds() + " s", last);
    }

    /** The kind of an error: its root cause's class and message, digits folded, so that kinds can be counted. */
    static String kind(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? "" : root.getMessage().replaceAll("[0-9]+", "#")
                .replaceAll("\\s+", " ").strip();
        if (message.length() > 80) {
            message = message.substring(0, 77) + "...";
        }
        String outer = error == root ? "" : error.getClass().getSimpleName() + " / ";
        return outer + root.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
    }

    private final class Run {
        private final String name;
        private final int threads;
        private final long boundNanos = settings.maxWait().toNanos();
        private final long pastBoundNanos = boundNanos + PAST_BOUND.toNanos();
        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicLong violations = new AtomicLong();
        private final AtomicLong acquisitions = new AtomicLong();   // every acquisition of the run
        private final LongAdder recorded = new LongAdder();          // those in the measured window
        private final LongAdder calls = new LongAdder();
        private final LongAdder timeouts = new LongAdder();
        private final LongAdder pastBound = new LongAdder();
        private final AtomicLong longestWait = new AtomicLong();
        private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
        /** When each thread's current acquire began, 0 outside an acquire: what a stuck thread has waited. */
        private final AtomicLongArray askedAt;
        private final AtomicLongArray acquiredInWindow;
        private volatile boolean recording;
        private volatile boolean stop;

        Run(String name, int threads) {
            this.name = name;
            this.threads = threads;
            this.askedAt = new AtomicLongArray(threads);
            this.acquiredInWindow = new AtomicLongArray(threads);
        }

        Map<String, Double> execute(Subject.Contender contender, ThreadFactory factory) throws InterruptedException {
            CountDownLatch started = new CountDownLatch(threads);
            CountDownLatch gate = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>(threads);
            for (int i = 0; i < threads; i++) {
                int index = i;
                workers.add(factory.newThread(() -> {
                    started.countDown();
                    try {
                        gate.await();
                        loop(contender, index);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
            }
            workers.forEach(Thread::start);
            started.await();
            gate.countDown();
            TimeUnit.NANOSECONDS.sleep(settings.warmup().toNanos());
            recording = true;
            long recordFrom = System.nanoTime();
            long end = recordFrom + settings.measure().toNanos();
            while (System.nanoTime() < end && acquisitions.get() < settings.maxAcquisitions()) {
                TimeUnit.MILLISECONDS.sleep(Math.max(1, Math.min(100, (end - System.nanoTime()) / 1_000_000)));
            }
            recording = false;
            stop = true;
            long measuredNanos = System.nanoTime() - recordFrom;
            long windowAcquisitions = recorded.sum();

            // Each thread ends its current acquire, which its bound ends; then the run waits DRAIN_SLACK more.
            long drainDeadline = System.nanoTime() + boundNanos + DRAIN_SLACK.toNanos();
            for (Thread worker : workers) {
                long left = drainDeadline - System.nanoTime();
                if (left > 0) {
                    TimeUnit.NANOSECONDS.timedJoin(worker, left);
                }
            }
            long stuck = 0;
            long now = System.nanoTime();
            for (int i = 0; i < threads; i++) {
                if (workers.get(i).isAlive()) {
                    stuck++;
                    long asked = askedAt.get(i);
                    if (asked != 0) {
                        recordWait(now - asked);
                    }
                    workers.get(i).interrupt();
                }
            }
            if (stuck > 0) {
                // Interrupted, the stuck threads leave their acquire; the client is closed after this in any case.
                long interruptDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                for (Thread worker : workers) {
                    long left = interruptDeadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    TimeUnit.NANOSECONDS.timedJoin(worker, left);
                }
            }
            long withoutAcquisition = 0;
            for (int i = 0; i < threads; i++) {
                if (acquiredInWindow.get(i) == 0) {
                    withoutAcquisition++;
                }
            }

            Map<String, Double> metrics = new LinkedHashMap<>();
            metrics.put("acquisitions_per_s", Scenarios.perSecond(windowAcquisitions, measuredNanos));
            metrics.put("acquisitions", (double) windowAcquisitions);
            metrics.put("calls", (double) calls.sum());
            metrics.put("timeouts", (double) timeouts.sum());
            metrics.put("errors", (double) errors.values().stream().mapToLong(LongAdder::sum).sum());
            metrics.put("past_bound", (double) pastBound.sum());
            metrics.put("longest_wait_ms", longestWait.get() / 1e6);
            metrics.put("stuck", (double) stuck);
            metrics.put("exclusion_violations", (double) violations.get());
            metrics.put("threads_without_acquisition", (double) withoutAcquisition);
            metrics.put("window_s", measuredNanos / 1e9);
            errors.forEach((kind, count) -> metrics.put("error." + kind, (double) count.sum()));
            return metrics;
        }

        private void loop(Subject.Contender contender, int index) {
            while (!stop && acquisitions.get() < settings.maxAcquisitions()) {
                long asked = System.nanoTime();
                askedAt.set(index, asked);
                Subject.Held held = null;
                try {
                    held = contender.acquire(name, settings.maxWait());
                } catch (TimeoutException e) {
                    timeouts.increment();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    if (stop) {
                        return; // stuck at the end of the run: already counted
                    }
                    error(e);
                } catch (Exception | Error e) {
                    if (stop && Thread.currentThread().isInterrupted()) {
                        return;
                    }
                    error(e);
                }
                askedAt.set(index, 0);
                calls.increment();
                recordWait(System.nanoTime() - asked);
                if (held == null) {
                    continue;
                }
                if (inside.incrementAndGet() != 1) {
                    violations.incrementAndGet();
                }
                acquisitions.incrementAndGet();
                if (recording) {
                    recorded.increment();
                    acquiredInWindow.incrementAndGet(index);
                }
                if (settings.hold().toNanos() > 0) {
                    Scenarios.parkAtLeast(settings.hold().toNanos()); // the work the lock guards, never cut short
                }
                inside.decrementAndGet();
                try {
                    held.release();
                } catch (Exception | Error e) {
                    errors.computeIfAbsent("release: " + kind(e), k -> new LongAdder()).increment();
                }
            }
        }

        private void error(Throwable e) {
            errors.computeIfAbsent(kind(e), k -> new LongAdder()).increment();
        }

        private void recordWait(long nanos) {
            longestWait.accumulateAndGet(nanos, Math::max);
            if (nanos > pastBoundNanos) {
                pastBound.increment();
            }
        }
    }

    /** A one-line summary of one waiter count's figures, for the log. */
    static String brief(Map<String, Double> metrics, String prefix) {
        if (metrics.containsKey(prefix + "failed")) {
            return prefix + " failed";
        }
        return String.format(Locale.ROOT, "%s%s/s (x%s) timeouts %s errors %s past bound %s longest %s ms stuck %s",
                prefix, Report.num(metrics.getOrDefault(prefix + "acquisitions_per_s", Double.NaN)),
                Report.ratioText(metrics.getOrDefault(prefix + "x_first", Double.NaN)),
                Report.count(metrics.getOrDefault(prefix + "timeouts", Double.NaN)),
                Report.count(metrics.getOrDefault(prefix + "errors", Double.NaN)),
                Report.count(metrics.getOrDefault(prefix + "past_bound", Double.NaN)),
                Report.count(metrics.getOrDefault(prefix + "longest_wait_ms", Double.NaN)),
                Report.count(metrics.getOrDefault(prefix + "stuck", Double.NaN)));
    }
}
