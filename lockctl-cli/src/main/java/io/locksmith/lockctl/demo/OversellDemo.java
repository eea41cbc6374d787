package io.locksmith.lockctl.demo;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockLostException;
import io.locksmith.LockOptions;
import io.locksmith.Capability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The stock-oversell post-mortem, replayed twice on the same workload. Several service instances sell one
 * hot item; each order takes the lock, reads the stock, calls a slow payment service, and deducts one unit.
 * Every few calls the payment service hangs past the lease.
 * <ul>
 * <li>With a naive lock ({@link NaiveLock}: set-if-absent with a TTL, plain delete), the lock expires under
 *     the stalled holder, a second holder gets in, the stalled one wakes up and deducts anyway from a stock
 *     it read long ago, and its delete frees a lock that is not its own: the stock goes below zero.</li>
 * <li>With Locksmith (one {@link LockClient} per instance, a fixed lease), the stalled holder is told
 *     ({@link Lease#onLost}, {@link Lease#ensureHeld()}) and gives up the order; a holder that passed its
 *     check and then paused presents a stale fencing token, which the stock table refuses.</li>
 * </ul>
 * <pre>{@code
 * DemoReport report = OversellDemo.run(DemoSettings.defaults(), System.out::println);
 * assert report.naive().oversold() && report.locksmith().safe();
 * }</pre>
 */
public final class OversellDemo {

    /** The phase name of the naive run. */
    public static final String NAIVE_RUN = "naive";
    /** The phase name of the Locksmith run. */
    public static final String LOCKSMITH_RUN = "locksmith";

    private static final Duration ACQUIRE_WAIT = Duration.ofSeconds(60);
    private static final Duration RUN_LIMIT = Duration.ofMinutes(5);

    private OversellDemo() {
    }

    /**
     * Runs the naive run, then the Locksmith run, with the same settings.
     *
     * @param events receives a line for each notable event (a stall, a loss, a refused write), for display
     * @return both runs' numbers
     * @throws io.locksmith.LockConfigurationException if the URI is wrong
     * @throws io.locksmith.LockStoreException         if the store cannot be reached
     * @throws IllegalArgumentException                if the store cannot honour the lease time
     * @throws io.locksmith.LockInterruptedException   if the calling thread is interrupted
     */
    public static DemoReport run(DemoSettings settings, Consumer<String> events) {
        return run(settings, events, phase -> { });
    }

    /**
     * As {@link #run(DemoSettings, Consumer)}, telling {@code phases} which run starts: {@link #NAIVE_RUN}, then
     * {@link #LOCKSMITH_RUN} (once the store is connected).
     */
    public static DemoReport run(DemoSettings settings, Consumer<String> events, Consumer<String> phases) {
        Objects.requireNonNull(settings, "settings cannot be null");
        Objects.requireNonNull(events, "events cannot be null");
        Objects.requireNonNull(phases, "phases cannot be null");
        List<LockClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < settings.instances(); i++) {
                clients.add(LockClient.builder().uri(settings.uri()).clientId("shop-" + (i + 1) + "-"
                        + UUID.randomUUID().toString().substring(0, 8)).build());
            }
            // The locks first: a store that cannot honour the lease says so before the naive run wastes time.
            String name = "demo:stock:sku-42:" + UUID.randomUUID().toString().substring(0, 8);
            LockOptions options = LockOptions.builder().leaseTime(settings.lease()).fixedLease().build();
            List<DistributedLock> locks = new ArrayList<>();
            for (LockClient client : clients) {
                locks.add(client.lock(name, options));
            }
            phases.accept(NAIVE_RUN);
            RunResult naive = runNaive(settings, events);
            LockClient first = clients.get(0);
            boolean fencing = first.capabilities().contains(Capability.FENCING);
            phases.accept(LOCKSMITH_RUN);
            RunResult locksmith = runLocksmith(settings, locks, events);
            return new DemoReport(settings, first.describe(), fencing, naive, locksmith);
        } finally {
            for (LockClient client : clients) {
                client.close();
            }
        }
    }

    /** The naive run alone (no store needed). */
    public static RunResult runNaive(DemoSettings settings, Consumer<String> events) {
        NaiveLock naiveLock = new NaiveLock(settings.lease());
        Workload workload = new Workload(settings, false, events);
        String key = "stock:sku-42";
        AtomicLong holdings = new AtomicLong();
        AtomicInteger foreignReleases = new AtomicInteger();
        long started = System.nanoTime();
        workload.runInstances(instance -> {
            String value = "shop-" + instance;   // the classic fixed value: it cannot tell holdings apart
            int order;
            while ((order = workload.nextOrder()) > 0) {
                long holding = holdings.incrementAndGet();
                naiveLock.lock(key, value, holding);
                workload.watch.enter(holding, () -> true);   // a naive holder never learns it lost the lock
                try {
                    workload.sell(value, order, holding, () -> { });
                } finally {
                    workload.watch.exit(holding);
                    NaiveLock.Entry deleted = naiveLock.unlock(key);
                    if (deleted != null && deleted.holding() != holding) {
                        foreignReleases.incrementAndGet();
                        workload.event(value + " order " + order + ": DEL removed " + deleted.value()
                                + "'s lock (its own had expired)");
                    }
                }
            }
            return null;
        });
        return workload.result("naive lock", foreignReleases.get(), 0, started);
    }

    private static RunResult runLocksmith(DemoSettings settings, List<DistributedLock> locks, Consumer<String> events) {
        Workload workload = new Workload(settings, true, events);
        AtomicInteger losses = new AtomicInteger();
        AtomicInteger aborted = new AtomicInteger();
        long started = System.nanoTime();
        workload.runInstances(instance -> {
            String who = "shop-" + instance;
            DistributedLock lock = locks.get(instance - 1);
            int order;
            while ((order = workload.nextOrder()) > 0) {
                int thisOrder = order;
                try (Lease lease = lock.acquire(ACQUIRE_WAIT)) {
                    lease.onLost(lost -> {
                        losses.incrementAndGet();
                        workload.event(who + " order " + thisOrder + ": onLost told the holder: " + lost.reason()
                                + " (" + lost.detail() + ")");
                    });
                    long token = lease.fencingToken();
                    workload.watch.enter(token, lease::isHeld);
                    try {
                        workload.sell(who, order, token, lease::ensureHeld);
                    } catch (LockLostException e) {
                        aborted.incrementAndGet();
                        workload.event(who + " order " + order + ": ensureHeld() threw, order abandoned, stock untouched");
                    } finally {
                        workload.watch.exit(token);
                    }
                }
            }
            return null;
        });
        return workload.result("Locksmith", 0, losses.get(), aborted.get(), started);
    }

    /** What both runs share: the orders, the stock table, the slow dependency, the instances' threads. */
    private static final class Workload {
        final DemoSettings settings;
        final StockTable table;
        final SlowDependency dependency;
        final OverlapWatch watch = new OverlapWatch();
        final Consumer<String> events;
        final AtomicInteger nextOrder = new AtomicInteger();
        final AtomicInteger soldOut = new AtomicInteger();

        Workload(DemoSettings settings, boolean fenced, Consumer<String> events) {
            this.settings = settings;
            this.table = new StockTable(settings.stock(), fenced);
            this.dependency = new SlowDependency(settings);
            this.events = events;
        }

        /** The next order number, or 0 when all orders are taken. */
        int nextOrder() {
            int order = nextOrder.incrementAndGet();
            return order <= settings.orders() ? order : 0;
        }

        void event(String line) {
            events.accept("  " + line);
        }

        interface Check {
            void run();
        }

        /** One order, in the critical section: read, pay, check the lease, deduct. */
        void sell(String who, int order, long token, Check leaseCheck) throws InterruptedException {
            int quantity = table.select(token);
            if (quantity == StockTable.REJECTED) {
                event(who + " order " + order + ": stock table refused the read, token " + token + " is stale");
                return;
            }
            if (quantity <= 0) {
                soldOut.incrementAndGet();
                return;
            }
            dependency.call();
            leaseCheck.run();
            if (dependency.pausesAfterCheck(order)) {
                dependency.pauseAfterCheck();
            }
            if (!table.deductOne(token)) {
                event(who + " order " + order + ": stock table refused the write, token " + token
                        + " is older than the newest holder's");
            } else if (table.quantity() < 0) {
                event(who + " order " + order + ": sold a unit it read " + quantity
                        + " of, long ago; stock is now " + table.quantity());
            }
        }

        interface Instance {
            Void run(int instance) throws Exception;
        }

        void runInstances(Instance body) {
            ExecutorService pool = Executors.newFixedThreadPool(settings.instances(), runnable -> {
                Thread thread = new Thread(runnable);
                thread.setDaemon(true);
                return thread;
            });
            try {
                List<Future<Void>> futures = new ArrayList<>();
                for (int i = 1; i <= settings.instances(); i++) {
                    int instance = i;
                    Callable<Void> task = () -> {
                        Thread.currentThread().setName("shop-" + instance);
                        return body.run(instance);
                    };
                    futures.add(pool.submit(task));
                }
                long deadline = System.nanoTime() + RUN_LIMIT.toNanos();
                for (Future<Void> future : futures) {
                    future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LockInterruptedException(null, e);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw new IllegalStateException("a demo instance failed: " + e.getCause(), e.getCause());
            } catch (TimeoutException e) {
                throw new IllegalStateException("the demo did not finish within " + RUN_LIMIT, e);
            } finally {
                pool.shutdownNow();
            }
        }

        RunResult result(String lock, int foreignReleases, int losses, long started) {
            return result(lock, foreignReleases, losses, 0, started);
        }

        RunResult result(String lock, int foreignReleases, int losses, int aborted, long started) {
            return new RunResult(lock, settings.orders(), table.unitsSold(), soldOut.get(), settings.stock(),
                    table.quantity(), watch.overlaps(), watch.unawareOverlaps(), foreignReleases,
                    table.staleWritesApplied(), table.staleStatementsRejected(), losses, aborted,
                    dependency.stalls(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        }
    }
}
