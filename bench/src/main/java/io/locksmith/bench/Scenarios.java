package io.locksmith.bench;

import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/** The measurements themselves: each takes a subject and returns its figures. */
final class Scenarios {

    /** How long one acquire of the renewal scenario's setup may take: not measured, only bounded. */
    private static final Duration SETUP_WAIT = Duration.ofSeconds(60);

    /** Latencies up to a minute, three significant digits. */
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final BenchConfig config;

    Scenarios(BenchConfig config) {
        this.config = config;
    }

    static Histogram histogram() {
        return new Histogram(HIGHEST_NANOS, 3);
    }

    /** Scenario 1: one thread acquires and releases a free lock as fast as it can. */
    Map<String, Double> uncontended(Subject subject, String name) throws Exception {
        return uncontended(subject, name, null);
    }

    /**
     * As {@link #uncontended(Subject, String)}, and, given {@code serverCost}, the Redis server's microseconds per pair in
     * the measured window ({@code server_us_per_op}).
     */
    Map<String, Double> uncontended(Subject subject, String name, RedisServerCost serverCost) throws Exception {
        Histogram latency = histogram();
        long ops = 0;
        long measuredNanos;
        try (Subject.Contender contender = subject.open(1)) {
            long start = System.nanoTime();
            long recordFrom = start + config.warmup().toNanos();
            long end = recordFrom + config.measure().toNanos();
            long now = start;
            boolean costStarted = serverCost == null;
            while (now < end) {
                if (!costStarted && now >= recordFrom) {
                    serverCost.start();
                    costStarted = true;
                }
                long before = System.nanoTime();
                contender.acquire(name, config.maxWait()).release();
                now = System.nanoTime();
                if (before >= recordFrom) {
                    latency.recordValue(Math.min(now - before, HIGHEST_NANOS));
                    ops++;
                }
            }
            measuredNanos = now - recordFrom;
        }
        Map<String, Double> metrics = new LinkedHashMap<>();
        metrics.put("ops_per_s", perSecond(ops, measuredNanos));
        if (serverCost != null) {
            metrics.put("server_us_per_op", serverCost.microsPerOperation(subject.redisCommandsSent(), ops));
        }
        putLatencies(metrics, "", latency);
        metrics.put("ops", (double) ops);
        return metrics;
    }

    /**
     * Scenario 2: {@code contenders} threads, each with its own client (as separate processes would), on one
     * lock. Each holds it for {@code hold} (the work it guards), releases it, and contends again only once
     * another thread has acquired it and a random think time (up to {@code thinkMax}) has passed, so no thread
     * can keep the lock by re-taking it at once, the others queue behind the holder, and they arrive at
     * independent times. The handoff latency runs from the start of a release to the acquire of a
     * thread that was already waiting when the release began returning; acquisitions by a thread that came
     * after the release began are counted, not timed.
     */
    Map<String, Double> contended(Subject subject, String name) throws Exception {
        int threads = config.contenders();
        List<Subject.Contender> contenders = new ArrayList<>();
        try {
            for (int i = 0; i < threads; i++) {
                contenders.add(subject.open(1));
            }
            ContendedRun run = new ContendedRun(name, threads);
            return run.execute(contenders);
        } finally {
            closeAll(contenders);
        }
    }

    private final class ContendedRun {
        private final String name;
        private final int threads;
        private final AtomicLong releaseStartedAt = new AtomicLong();
        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicLong violations = new AtomicLong();
        private final AtomicLong timeouts = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final Object turn = new Object();
        private int lastHolder = -1;          // guarded by turn
        private long byAnotherThread;         // guarded by turn
        private long acquisitions;            // guarded by turn
        private long recordedAcquisitions;    // guarded by turn
        private long withoutWaiting;          // guarded by turn
        private volatile boolean recording;
        private volatile boolean stop;

        ContendedRun(String name, int threads) {
            this.name = name;
            this.threads = threads;
        }

        Map<String, Double> execute(List<Subject.Contender> contenders) throws InterruptedException {
            List<Histogram> handoffs = new ArrayList<>();
            List<Thread> workers = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Histogram handoff = histogram();
                handoffs.add(handoff);
                Subject.Contender contender = contenders.get(i);
                int index = i;
                Thread worker = new Thread(() -> loop(index, contender, handoff), "bench-contender-" + i);
                workers.add(worker);
            }
            workers.forEach(Thread::start);
            TimeUnit.NANOSECONDS.sleep(config.warmup().toNanos());
            recording = true;
            long recordFrom = System.nanoTime();
            TimeUnit.NANOSECONDS.sleep(config.measure().toNanos());
            stop = true;
            long measuredNanos = System.nanoTime() - recordFrom;
            synchronized (turn) {
                turn.notifyAll();
            }
            for (Thread worker : workers) {
                worker.join(config.maxWait().toMillis() + 5_000);
                if (worker.isAlive()) {
                    worker.interrupt();
                    failure.compareAndSet(null, new IllegalStateException(worker.getName() + " did not stop"));
                }
            }
            if (failure.get() != null) {
                throw new IllegalStateException("contended run failed: " + failure.get(), failure.get());
            }
            Histogram handoff = histogram();
            handoffs.forEach(handoff::add);
            Map<String, Double> metrics = new LinkedHashMap<>();
            long acquired;
            long notWaiting;
            long another;
            synchronized (turn) {
                acquired = recordedAcquisitions;
                notWaiting = withoutWaiting;
                another = byAnotherThread;
            }
            metrics.put("acquisitions_per_s", perSecond(acquired, measuredNanos));
            putLatencies(metrics, "handoff_", handoff);
            metrics.put("acquisitions", (double) acquired);
            metrics.put("handoffs_to_waiters_pct", acquired == 0 ? 0 : 100.0 * (acquired - notWaiting) / acquired);
            // The thread before was another: the lock was handed over rather than taken again by its last holder.
            metrics.put("to_another_thread_pct", acquired == 0 ? 0 : 100.0 * another / acquired);
            metrics.put("timeouts", (double) timeouts.get());
            metrics.put("exclusion_violations", (double) violations.get());
            return metrics;
        }

        private void loop(int index, Subject.Contender contender, Histogram handoff) {
            try {
                while (!stop) {
                    Subject.Held held;
                    long askedAt = System.nanoTime();
                    try {
                        held = contender.acquire(name, config.maxWait());
                    } catch (TimeoutException e) {
                        timeouts.incrementAndGet();
                        continue;
                    }
                    long acquiredAt = System.nanoTime();
                    if (inside.incrementAndGet() != 1) {
                        violations.incrementAndGet();
                    }
                    long releasedAt = releaseStartedAt.getAndSet(0);
                    long myTurn;
                    synchronized (turn) {
                        myTurn = ++acquisitions;
                        if (recording && !stop) {
                            recordedAcquisitions++;
                            if (lastHolder != index) {
                                byAnotherThread++;
                            }
                            if (releasedAt != 0 && askedAt < releasedAt) {
                                handoff.recordValue(Math.min(acquiredAt - releasedAt, HIGHEST_NANOS));
                            } else {
                                withoutWaiting++;
                            }
                        }
                        lastHolder = index;
                        turn.notifyAll();
                    }
                    if (config.hold().toNanos() > 0) {
                        parkAtLeast(config.hold().toNanos()); // the work the lock guards
                    }
                    inside.decrementAndGet();
                    releaseStartedAt.set(System.nanoTime());
                    held.release();
                    if (!config.retake()) {
                        awaitAnotherTurn(myTurn);
                    }
                    // Other work before the next need of the lock. Random, so contenders arrive independently
                    // as separate processes do, not all at once on the heels of each acquisition.
                    if (config.thinkMax().toNanos() > 0) {
                        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(config.thinkMax().toNanos()));
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception | Error e) {
                failure.compareAndSet(null, e);
                stop = true;
            }
        }

        /** Back of the queue: contend again only once another thread has had the lock (or the run ends). */
        private void awaitAnotherTurn(long myTurn) throws InterruptedException {
            synchronized (turn) {
                while (acquisitions == myTurn && !stop) {
                    turn.wait(200);
                }
            }
        }
    }

    /** Scenario 3: many threads on one client, each operation on a random one of many names. */
    Map<String, Double> manyNames(Subject subject, String prefix) throws Exception {
        int threads = config.manyThreads();
        AtomicLong timeouts = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Histogram> latencies = new ArrayList<>();
        long[] counts = new long[threads];
        long measuredNanos;
        try (Subject.Contender contender = subject.open(threads)) {
            CountDownLatch ready = new CountDownLatch(threads);
            long[] window = new long[2]; // written before the gate opens: recordFrom, end
            CountDownLatch gate = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Histogram latency = histogram();
                latencies.add(latency);
                int index = i;
                workers.add(new Thread(() -> {
                    try {
                        ready.countDown();
                        gate.await();
                        long recordFrom = window[0];
                        long end = window[1];
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        for (long now = System.nanoTime(); now < end && failure.get() == null; ) {
                            String name = prefix + random.nextInt(config.names());
                            long before = System.nanoTime();
                            try {
                                contender.acquire(name, config.maxWait()).release();
                            } catch (TimeoutException e) {
                                timeouts.incrementAndGet();
                            }
                            now = System.nanoTime();
                            if (before >= recordFrom && now <= end) {
                                latency.recordValue(Math.min(now - before, HIGHEST_NANOS));
                                counts[index]++;
                            }
                        }
                    } catch (Exception | Error e) {
                        failure.compareAndSet(null, e);
                    }
                }, "bench-many-" + i));
            }
            workers.forEach(Thread::start);
            ready.await();
            window[0] = System.nanoTime() + config.warmup().toNanos();
            window[1] = window[0] + config.measure().toNanos();
            gate.countDown();
            for (Thread worker : workers) {
                worker.join();
            }
            measuredNanos = window[1] - window[0];
        }
        if (failure.get() != null) {
            throw new IllegalStateException("many-names run failed: " + failure.get(), failure.get());
        }
        Histogram latency = histogram();
        latencies.forEach(latency::add);
        long ops = 0;
        for (long count : counts) {
            ops += count;
        }
        Map<String, Double> metrics = new LinkedHashMap<>();
        metrics.put("ops_per_s", perSecond(ops, measuredNanos));
        putLatencies(metrics, "", latency);
        metrics.put("ops", (double) ops);
        metrics.put("timeouts", (double) timeouts.get());
        return metrics;
    }

    /** Reads a store's served-request counter; the renewal scenario compares two readings. */
    @FunctionalInterface
    interface RequestCounter {
        long requestsServed();
    }

    /**
     * Scenario 4: one client takes {@code renewalLocks} locks (in several threads, not measured), then holds
     * them for {@code renewalHold} while the store's request counter, the process CPU time and the heap are
     * read. The bench runs only this client then, and the servers run in other processes.
     */
    Map<String, Double> renewal(Subject subject, String prefix, RequestCounter counter) throws Exception {
        int setupThreads = 16;
        int locks = config.renewalLocks();
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long heapBefore = settledHeap(memory);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch acquired = new CountDownLatch(setupThreads);
        CountDownLatch release = new CountDownLatch(1);
        Map<String, Double> metrics = new LinkedHashMap<>();
        List<List<Subject.Held>> heldByThread = new ArrayList<>();
        try (Subject.Contender contender = subject.open(setupThreads)) {
            long setupStart = System.nanoTime();
            List<Thread> holders = new ArrayList<>();
            for (int t = 0; t < setupThreads; t++) {
                int first = t;
                List<Subject.Held> held = new ArrayList<>();
                heldByThread.add(held); // read by this thread only after the 'acquired' latch
                holders.add(new Thread(() -> {
                    try {
                        for (int i = first; i < locks && failure.get() == null; i += setupThreads) {
                            held.add(contender.acquire(prefix + i, SETUP_WAIT));
                        }
                    } catch (Exception | Error e) {
                        failure.compareAndSet(null, e);
                    } finally {
                        acquired.countDown();
                    }
                    try {
                        release.await();
                        for (Subject.Held lock : held) {
                            lock.release(); // by the thread that took it: Curator and Redisson need that
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (Exception | Error e) {
                        failure.compareAndSet(null, e);
                    }
                }, "bench-holder-" + t));
            }
            holders.forEach(Thread::start);
            acquired.await();
            try {
                if (failure.get() != null) {
                    throw new IllegalStateException("taking " + locks + " locks failed: " + failure.get(), failure.get());
                }
                double setupSeconds = (System.nanoTime() - setupStart) / 1e9;
                long heapHeld = settledHeap(memory) - heapBefore;
                long requestsBefore = counter.requestsServed();
                long cpuBefore = processCpuNanos();
                long windowStart = System.nanoTime();
                TimeUnit.NANOSECONDS.sleep(config.renewalHold().toNanos());
                long requestsAfter = counter.requestsServed();
                long cpuAfter = processCpuNanos();
                long windowNanos = System.nanoTime() - windowStart;
                long lost = 0;
                for (List<Subject.Held> held : heldByThread) {
                    for (Subject.Held lock : held) {
                        if (lock.stillHeld().map(stillHeld -> !stillHeld).orElse(false)) {
                            lost++;
                        }
                    }
                }
                long requests = requestsAfter - requestsBefore;
                metrics.put("store_requests_per_s", perSecond(requests, windowNanos));
                // Renewing clients renew every lease/3: requests per such round show what one round costs.
                double rounds = windowNanos / (config.renewalLease().toNanos() / 3.0);
                metrics.put("requests_per_round", requests / rounds);
                metrics.put("client_cpu_pct", 100.0 * (cpuAfter - cpuBefore) / windowNanos);
                metrics.put("heap_mb", heapHeld / (1024.0 * 1024.0));
                // What the client retains per held lock (with the handle the application keeps, as it must).
                metrics.put("heap_bytes_per_lock", (double) heapHeld / locks);
                metrics.put("locks", (double) locks);
                metrics.put("locks_lost", (double) lost);
                metrics.put("window_s", windowNanos / 1e9);
                metrics.put("setup_s", setupSeconds);
            } finally {
                release.countDown();
                for (Thread holder : holders) {
                    holder.join(60_000);
                }
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("renewal run failed: " + failure.get(), failure.get());
        }
        return metrics;
    }

    /** Measures one store round trip with {@code op}: the unit in which handoff latency is judged. */
    Map<String, Double> roundTrip(ThrowingRunnable op) throws Exception {
        return roundTrip(op, 0);
    }

    /** As {@link #roundTrip(ThrowingRunnable)}, with the calling thread parked {@code idleNanos} before each request. */
    Map<String, Double> roundTrip(ThrowingRunnable op, long idleNanos) throws Exception {
        Histogram latency = histogram();
        for (int i = 0; i < 50; i++) {
            op.run(); // the first calls of a client open channels and load classes: not a round trip
        }
        long start = System.nanoTime();
        long recordFrom = start + Math.min(config.warmup().toNanos(), TimeUnit.SECONDS.toNanos(1));
        long end = recordFrom + Math.min(config.measure().toNanos(), TimeUnit.SECONDS.toNanos(2));
        long ops = 0;
        for (long now = start; now < end || ops < 100; ) {
            if (idleNanos > 0) {
                LockSupport.parkNanos(idleNanos);
            }
            long before = System.nanoTime();
            op.run();
            now = System.nanoTime();
            if (before >= recordFrom) {
                latency.recordValue(Math.min(now - before, HIGHEST_NANOS));
                ops++;
            }
        }
        Map<String, Double> metrics = new LinkedHashMap<>();
        putLatencies(metrics, "", latency);
        metrics.put("ops", (double) ops);
        return metrics;
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /**
     * Parks the calling thread for at least {@code nanos}. One {@link LockSupport#parkNanos} may return at once: a
     * client that wakes its waiters with {@link LockSupport#unpark} can leave the thread a permit, and a park may
     * return spuriously; a hold cut short that way made a 1 ms hold shorter and a lock look faster than it is.
     */
    static void parkAtLeast(long nanos) {
        long until = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    static double perSecond(long count, long nanos) {
        return nanos <= 0 ? 0 : count * 1e9 / nanos;
    }

    static void putLatencies(Map<String, Double> metrics, String prefix, Histogram histogram) {
        if (histogram.getTotalCount() == 0) {
            metrics.put(prefix + "p50_us", Double.NaN);
            metrics.put(prefix + "p99_us", Double.NaN);
            return;
        }
        metrics.put(prefix + "p50_us", histogram.getValueAtPercentile(50) / 1e3);
        metrics.put(prefix + "p99_us", histogram.getValueAtPercentile(99) / 1e3);
        metrics.put(prefix + "max_us", histogram.getMaxValue() / 1e3);
    }

    static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** Heap in use after a full collection: what the client retains, not garbage waiting to be collected. */
    private static long settledHeap(MemoryMXBean memory) throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            System.gc();
            TimeUnit.MILLISECONDS.sleep(100); // no event tells that a System.gc() finished its concurrent work
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    private static void closeAll(List<Subject.Contender> contenders) {
        for (Subject.Contender contender : contenders) {
            try {
                contender.close();
            } catch (Exception e) {
                System.err.println("closing a contender failed: " + e);
            }
        }
    }
}
