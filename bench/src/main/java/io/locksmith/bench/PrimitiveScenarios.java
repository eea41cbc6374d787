package io.locksmith.bench;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The primitives scenarios of issue 32, each run only when named: a read-heavy read-write lock, a semaphore under
 * contention, and leader failover time. Every contender or candidate has its own client, as separate processes would;
 * each subject uses its own primitive ({@link PrimitiveSubject}).
 */
final class PrimitiveScenarios {

    /**
     * How the primitives scenarios run.
     *
     * @param warmup          time run before measuring (read-write lock and semaphore)
     * @param measure         measured time (read-write lock and semaphore)
     * @param maxWait         longest one acquire may wait before it counts as a time-out
     * @param rwThreads       threads on the read-write lock, one client each
     * @param writePercent    the share of their acquires that are writes
     * @param hold            how long a holder keeps a read or write lock or its permit (the work it guards)
     * @param permits         the semaphore's permits
     * @param semaphoreThreads threads on the semaphore, one client each, each taking one permit at a time
     * @param candidates      candidates of the election, one client each
     * @param failoverRounds  measured failovers by closing the leader's client (one more, the first, is run unmeasured)
     * @param crashRounds     measured failovers by cutting the leader's client off the store (0: none)
     */
    record Settings(Duration warmup, Duration measure, Duration maxWait, int rwThreads, int writePercent, Duration hold,
                    int permits, int semaphoreThreads, int candidates, int failoverRounds, int crashRounds) {

        static Settings of(BenchConfig config, int failoverRounds, int crashRounds) {
            return new Settings(config.warmup(), config.measure(), config.maxWait(), 8, 10, Duration.ofMillis(1), 4, 16,
                    3, failoverRounds, crashRounds);
        }
    }

    /** How long one failover may take before the scenario fails: longer than any lease or session here. */
    static final Duration FAILOVER_LIMIT = Duration.ofSeconds(60);

    private final Settings settings;

    PrimitiveScenarios(Settings settings) {
        this.settings = settings;
    }

    Settings settings() {
        return settings;
    }

    /**
     * The read-heavy read-write lock: {@link Settings#rwThreads()} threads on one name, each acquire a write with
     * probability {@link Settings#writePercent()} %, else a read, held {@link Settings#hold()}, released, and again at
     * once. Reported: reads/s and writes/s in the measured window, each kind's wait (the acquire call) p50/p99,
     * time-outs, and overlaps (a writer with anybody else inside; there must be none).
     */
    Map<String, Double> readWriteReadHeavy(PrimitiveSubject subject, String name) throws Exception {
        AtomicInteger readersInside = new AtomicInteger();
        AtomicInteger writersInside = new AtomicInteger();
        AtomicLong overlaps = new AtomicLong();
        Histogram readWaits = Scenarios.histogram();
        Histogram writeWaits = Scenarios.histogram();
        Window window = new Window(settings.rwThreads(), (primitives, recording) -> {
            boolean write = ThreadLocalRandom.current().nextInt(100) < settings.writePercent();
            long askedAt = System.nanoTime();
            Subject.Held held = write ? primitives.acquireWrite(name, settings.maxWait())
                    : primitives.acquireRead(name, settings.maxWait());
            long waited = System.nanoTime() - askedAt;
            // Each side counts itself in, then looks at the other: if a reader and a writer overlap, one sees the other.
            if (write) {
                int writers = writersInside.incrementAndGet();
                int readers = readersInside.get();
                if (writers != 1 || readers != 0) {
                    overlaps.incrementAndGet();
                }
            } else {
                readersInside.incrementAndGet();
                if (writersInside.get() != 0) {
                    overlaps.incrementAndGet();
                }
            }
            if (recording) {
                Histogram waits = write ? writeWaits : readWaits;
                synchronized (waits) {
                    waits.recordValue(Math.min(waited, TimeUnit.SECONDS.toNanos(60)));
                }
            }
            Scenarios.parkAtLeast(settings.hold().toNanos());
            (write ? writersInside : readersInside).decrementAndGet();
            held.release();
            return write ? 1 : 0;
        });
        window.run(subject);
        Map<String, Double> metrics = new LinkedHashMap<>();
        metrics.put("reads_per_s", Scenarios.perSecond(window.counted(0), window.measuredNanos()));
        metrics.put("writes_per_s", Scenarios.perSecond(window.counted(1), window.measuredNanos()));
        Scenarios.putLatencies(metrics, "read_wait_", readWaits);
        Scenarios.putLatencies(metrics, "write_wait_", writeWaits);
        metrics.put("reads", (double) window.counted(0));
        metrics.put("writes", (double) window.counted(1));
        metrics.put("timeouts", (double) window.timeouts());
        metrics.put("exclusion_violations", (double) overlaps.get());
        if (overlaps.get() > 0) {
            throw new IllegalStateException("SAFETY: " + subject.label() + " let a writer in beside another holder "
                    + overlaps.get() + " times: " + metrics);
        }
        return metrics;
    }

    /**
     * The semaphore of {@link Settings#permits()} permits under {@link Settings#semaphoreThreads()} contenders, each
     * taking one permit, holding it {@link Settings#hold()}, releasing it, and asking again at once. Reported:
     * acquisitions/s, the wait (the acquire call) p50/p99, time-outs, and the most permits seen held at once.
     *
     * @throws IllegalStateException if more than {@link Settings#permits()} permits were ever seen held at once
     */
    Map<String, Double> semaphore(PrimitiveSubject subject, String name) throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        Histogram waits = Scenarios.histogram();
        Window window = new Window(settings.semaphoreThreads(), (primitives, recording) -> {
            long askedAt = System.nanoTime();
            Subject.Held held = primitives.acquirePermits(name, settings.permits(), 1, settings.maxWait());
            long waited = System.nanoTime() - askedAt;
            // Counted in after the grant and out before the release: the count never exceeds what the store holds.
            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            if (recording) {
                synchronized (waits) {
                    waits.recordValue(Math.min(waited, TimeUnit.SECONDS.toNanos(60)));
                }
            }
            Scenarios.parkAtLeast(settings.hold().toNanos());
            inside.decrementAndGet();
            held.release();
            return 0;
        });
        window.run(subject);
        Map<String, Double> metrics = new LinkedHashMap<>();
        metrics.put("acquisitions_per_s", Scenarios.perSecond(window.counted(0), window.measuredNanos()));
        Scenarios.putLatencies(metrics, "wait_", waits);
        metrics.put("most_held", (double) mostInside.get());
        metrics.put("permits", (double) settings.permits());
        metrics.put("acquisitions", (double) window.counted(0));
        metrics.put("timeouts", (double) window.timeouts());
        if (mostInside.get() > settings.permits()) {
            throw new IllegalStateException("SAFETY: " + subject.label() + " let " + mostInside.get()
                    + " permits be held at once of a semaphore of " + settings.permits() + ": " + metrics);
        }
        return metrics;
    }

    /**
     * Leader failover: {@link Settings#candidates()} candidates, each with its own client, join one election; then,
     * round after round, the leader's client is closed (a clean shutdown: Locksmith's {@code LockClient.close()}
     * releases the term, Curator's {@code close()} ends the session, jetcd's revokes the lease) and the time from the
     * start of that close until another candidate's elected callback runs is measured; a new candidate replaces the
     * closed one. The first round is not measured. Then, for {@link Settings#crashRounds()} rounds, the leader's client
     * is {@linkplain PrimitiveSubject.Primitives#cutOff() cut off} instead, as a crash would leave it, and the time
     * until another is elected is measured the same way: the lease (or session) and how late the store ends it; only
     * for subjects whose clients {@linkplain PrimitiveSubject#canCutOff() can be cut off}.
     * Reported: each kind's p50 and longest (ms), the close call's p50, and elections that no close or cut caused
     * (a term lost on its own, say, on a loaded machine), which are counted, not failed: the term that ended then
     * may have been lost, not overlapped.
     */
    Map<String, Double> leaderFailover(PrimitiveSubject subject, String name) throws Exception {
        LinkedBlockingQueue<Elected> elections = new LinkedBlockingQueue<>();
        List<Candidate> candidates = new ArrayList<>();
        List<Candidate> cutOff = new ArrayList<>();
        long[] failovers = new long[settings.failoverRounds()];
        long[] closes = new long[settings.failoverRounds()];
        long[] crashes = new long[subject.canCutOff() ? settings.crashRounds() : 0];
        long unprompted = 0;
        int joined = 0;
        try {
            while (joined < settings.candidates()) {
                candidates.add(Candidate.join(subject, name, joined++, elections::add));
            }
            Candidate leader = awaitElection(subject, elections, "the candidates' joining").candidate();
            int rounds = settings.failoverRounds() + 1 + crashes.length;
            for (int round = 0; round < rounds; round++) {
                boolean crash = round > settings.failoverRounds();
                unprompted += elections.size();
                elections.clear();
                long start = System.nanoTime();
                if (crash) {
                    leader.cutOff();
                    cutOff.add(leader); // closed at the end: its close would wait on the store for nothing
                } else {
                    leader.close();
                }
                long ended = System.nanoTime();
                candidates.remove(leader);
                Elected next = awaitElection(subject, elections, crash ? "the leader's cut" : "the leader's close");
                if (crash) {
                    crashes[round - settings.failoverRounds() - 1] = next.atNanos() - start;
                } else if (round > 0) { // the first is not measured
                    failovers[round - 1] = next.atNanos() - start;
                    closes[round - 1] = ended - start;
                }
                leader = next.candidate();
                candidates.add(Candidate.join(subject, name, joined++, elections::add));
            }
        } finally {
            candidates.forEach(Candidate::closeQuietly);
            cutOff.forEach(Candidate::closeQuietly);
        }
        Map<String, Double> metrics = new LinkedHashMap<>();
        putMillis(metrics, "failover_", failovers);
        metrics.put("close_p50_ms", median(closes));
        metrics.put("rounds", (double) failovers.length);
        if (crashes.length > 0) {
            putMillis(metrics, "crash_", crashes);
            metrics.put("crash_rounds", (double) crashes.length);
        }
        metrics.put("unprompted_elections", (double) unprompted);
        return metrics;
    }

    private static Elected awaitElection(PrimitiveSubject subject, LinkedBlockingQueue<Elected> elections, String after)
            throws InterruptedException {
        Elected next = elections.poll(FAILOVER_LIMIT.toNanos(), TimeUnit.NANOSECONDS);
        if (next == null) {
            throw new IllegalStateException(subject.label() + ": nobody was elected within " + FAILOVER_LIMIT + " of "
                    + after);
        }
        return next;
    }

    /** {@code prefix}p50_ms, max_ms and min_ms of {@code nanos}. */
    private static void putMillis(Map<String, Double> metrics, String prefix, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        metrics.put(prefix + "p50_ms", median(sorted));
        metrics.put(prefix + "max_ms", sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1] / 1e6);
        metrics.put(prefix + "min_ms", sorted.length == 0 ? Double.NaN : sorted[0] / 1e6);
    }

    private static double median(long[] nanos) {
        return Report.median(Arrays.stream(nanos).mapToDouble(n -> n / 1e6).toArray());
    }

    /** A candidate's election, at the time its elected callback ran. */
    private record Elected(Candidate candidate, long atNanos) {
    }

    /** One candidate: its own client, campaigning on one election. */
    private static final class Candidate {
        private final PrimitiveSubject.Primitives client;
        private final int number;

        private Candidate(PrimitiveSubject.Primitives client, int number) {
            this.client = client;
            this.number = number;
        }

        static Candidate join(PrimitiveSubject subject, String election, int number,
                              java.util.function.Consumer<Elected> elected) throws Exception {
            PrimitiveSubject.Primitives client = subject.openPrimitives();
            Candidate candidate = new Candidate(client, number);
            try {
                client.campaign(election, () -> elected.accept(new Elected(candidate, System.nanoTime())));
            } catch (Exception | Error e) {
                candidate.closeQuietly();
                throw e;
            }
            return candidate;
        }

        void close() throws Exception {
            client.close();
        }

        void cutOff() {
            client.cutOff();
        }

        void closeQuietly() {
            try {
                client.close();
            } catch (Exception e) {
                System.err.println("closing candidate " + number + " failed: " + e);
            }
        }
    }

    /** One acquire, hold and release of a contender; returns the kind of acquisition to count (0 or 1). */
    @FunctionalInterface
    private interface Step {
        int run(PrimitiveSubject.Primitives primitives, boolean recording) throws Exception;
    }

    /**
     * Threads, each with its own client, running a {@link Step} in a loop through a warm-up and a measured window;
     * acquisitions are counted by kind when they began and ended in the window. A time-out is counted and the loop goes on;
     * any other failure stops the run and is thrown.
     */
    private final class Window {
        private final int threads;
        private final Step step;
        private final AtomicLong[] counted = {new AtomicLong(), new AtomicLong()};
        private final AtomicLong timeouts = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private volatile boolean recording;
        private volatile boolean stop;
        private long measuredNanos;

        Window(int threads, Step step) {
            this.threads = threads;
            this.step = step;
        }

        void run(PrimitiveSubject subject) throws Exception {
            List<PrimitiveSubject.Primitives> clients = new ArrayList<>();
            List<Thread> workers = new ArrayList<>();
            try {
                for (int i = 0; i < threads; i++) {
                    clients.add(subject.openPrimitives());
                }
                for (int i = 0; i < threads; i++) {
                    PrimitiveSubject.Primitives client = clients.get(i);
                    workers.add(new Thread(() -> loop(client), "bench-primitive-" + i));
                }
                workers.forEach(Thread::start);
                TimeUnit.NANOSECONDS.sleep(settings.warmup().toNanos());
                recording = true;
                long recordFrom = System.nanoTime();
                TimeUnit.NANOSECONDS.sleep(settings.measure().toNanos());
                recording = false;
                measuredNanos = System.nanoTime() - recordFrom;
            } finally {
                stop = true;
                for (Thread worker : workers) {
                    worker.join(settings.maxWait().toMillis() + 5_000);
                    if (worker.isAlive()) {
                        worker.interrupt();
                        failure.compareAndSet(null, new IllegalStateException(worker.getName() + " did not stop"));
                    }
                }
                for (PrimitiveSubject.Primitives client : clients) {
                    try {
                        client.close();
                    } catch (Exception e) {
                        System.err.println("closing a primitives client failed: " + e);
                    }
                }
            }
            if (failure.get() != null) {
                throw new IllegalStateException("run failed: " + failure.get(), failure.get());
            }
        }

        private void loop(PrimitiveSubject.Primitives client) {
            try {
                while (!stop) {
                    boolean inWindow = recording;
                    try {
                        int kind = step.run(client, inWindow);
                        if (inWindow && recording) { // begun and ended in the window
                            counted[kind].incrementAndGet();
                        }
                    } catch (TimeoutException e) {
                        timeouts.incrementAndGet();
                    }
                }
            } catch (Exception | Error e) {
                failure.compareAndSet(null, e);
                stop = true;
            }
        }

        long counted(int kind) {
            return counted[kind].get();
        }

        long timeouts() {
            return timeouts.get();
        }

        long measuredNanos() {
            return measuredNanos;
        }
    }
}
