package io.locksmith.lockctl.bench;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInterruptedException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Quick figures for one store: the latency of an uncontended acquire+release (one client, one thread), and
 * how many handoffs per second {@code threads} clients manage on one contended name. A first look, not a
 * benchmark: one run, no warm-up beyond a few rounds, the client machine's noise included.
 */
public final class Bench {

    private static final int WARM_UP = 20;
    private static final Duration MAX_WAIT = Duration.ofSeconds(30);

    /**
     * The figures.
     *
     * @param ops              acquire+release pairs per phase
     * @param threads          clients contending in the second phase
     * @param p50Micros        median uncontended acquire+release
     * @param p99Micros        99th percentile uncontended acquire+release
     * @param uncontendedOps   uncontended acquire+release pairs per second
     * @param handoffsPerSecond contended acquisitions per second across all clients
     * @param contendedP99Micros 99th percentile of a contended acquire (the wait included)
     */
    public record Result(int ops, int threads, long p50Micros, long p99Micros, double uncontendedOps,
                         double handoffsPerSecond, long contendedP99Micros) {
    }

    private final String uri;
    private final int ops;
    private final int threads;
    private final AtomicInteger done = new AtomicInteger();

    public Bench(String uri, int ops, int threads) {
        if (ops < 1) {
            throw new IllegalArgumentException("--ops must be at least 1, was " + ops);
        }
        if (threads < 1) {
            throw new IllegalArgumentException("--threads must be at least 1, was " + threads);
        }
        this.uri = uri;
        this.ops = ops;
        this.threads = threads;
    }

    /** Operations done so far, over both phases, for a progress line. */
    public int done() {
        return done.get();
    }

    /**
     * Runs both phases on lock names of their own ({@code lockctl:bench:UUID}).
     *
     * @throws io.locksmith.LockStoreException if the store cannot be reached
     */
    @SuppressWarnings("try") // the resource is held for its scope only
    public Result run() {
        String name = "lockctl:bench:" + UUID.randomUUID();
        long[] latencies = new long[ops];
        double uncontendedOps;
        try (LockClient client = LockClient.open(uri)) {
            DistributedLock lock = client.lock(name + ":solo");
            for (int i = 0; i < WARM_UP; i++) {
                lock.acquire(MAX_WAIT).close();
            }
            long start = System.nanoTime();
            for (int i = 0; i < ops; i++) {
                long opStart = System.nanoTime();
                try (Lease ignored = lock.acquire(MAX_WAIT)) {
                    done.incrementAndGet();
                }
                latencies[i] = System.nanoTime() - opStart;
            }
            uncontendedOps = ops / seconds(System.nanoTime() - start);
        }
        Arrays.sort(latencies);
        long[] waits = new long[ops];
        double handoffs = contended(name + ":shared", waits);
        Arrays.sort(waits);
        return new Result(ops, threads, percentile(latencies, 50) / 1000, percentile(latencies, 99) / 1000,
                uncontendedOps, handoffs, percentile(waits, 99) / 1000);
    }

    @SuppressWarnings("try") // the resource is held for its scope only
    private double contended(String name, long[] waits) {
        List<LockClient> clients = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int i = 0; i < threads; i++) {
                clients.add(LockClient.open(uri));
            }
            AtomicInteger next = new AtomicInteger();
            List<Future<Void>> futures = new ArrayList<>();
            long start = System.nanoTime();
            for (LockClient client : clients) {
                DistributedLock lock = client.lock(name);
                Callable<Void> worker = () -> {
                    int op;
                    while ((op = next.getAndIncrement()) < ops) {
                        long waitStart = System.nanoTime();
                        try (Lease ignored = lock.acquire(MAX_WAIT)) {
                            waits[op] = System.nanoTime() - waitStart;
                            done.incrementAndGet();
                        }
                    }
                    return null;
                };
                futures.add(pool.submit(worker));
            }
            for (Future<Void> future : futures) {
                future.get();
            }
            return ops / seconds(System.nanoTime() - start);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(name, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
            clients.forEach(LockClient::close);
        }
    }

    private static double seconds(long nanos) {
        return Math.max(nanos, 1) / 1e9;
    }

    private static long percentile(long[] sorted, int percent) {
        int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
