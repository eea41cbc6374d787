package io.locksmith.examples;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockLostException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An order service instance: takes {@code ORDERS} orders of one hot item, each under the item's lock, and
 * writes through a fenced inventory. It knows nothing of the store: the lock URI comes from
 * {@code LOCKSMITH_URI} / {@code -Dlocksmith.uri} ({@link LockClient#fromEnvironment()}), so the same build
 * runs on Redis, etcd, ZooKeeper, or through a migration between them.
 *
 * <p>Usage: {@code StockServiceApp INVENTORY_FILE ORDERS [THREADS]}. Prints one summary line and exits 0 if
 * every order was handled, 1 otherwise.
 */
public final class StockServiceApp {

    private StockServiceApp() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 2) {
            System.err.println("usage: StockServiceApp INVENTORY_FILE ORDERS [THREADS]");
            System.exit(2);
        }
        FencedFileInventory inventory = new FencedFileInventory(Path.of(args[0]));
        int orders = Integer.parseInt(args[1]);
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        Map<FencedFileInventory.Outcome, Integer> outcomes;
        try (LockClient locks = LockClient.fromEnvironment()) {
            outcomes = takeOrders(locks, inventory, orders, threads);
            System.out.println("stock-service " + locks.clientId() + " on " + locks.describe() + ": " + outcomes
                    + ", stock now " + inventory.stock());
        }
        int handled = outcomes.values().stream().mapToInt(Integer::intValue).sum();
        System.exit(handled == orders ? 0 : 1);
    }

    /** Runs the orders on {@code threads} threads; returns what happened to them. */
    public static Map<FencedFileInventory.Outcome, Integer> takeOrders(LockClient locks, FencedFileInventory inventory,
                                                                    int orders, int threads) throws InterruptedException {
        Map<FencedFileInventory.Outcome, AtomicInteger> counts = new EnumMap<>(FencedFileInventory.Outcome.class);
        for (FencedFileInventory.Outcome outcome : FencedFileInventory.Outcome.values()) {
            counts.put(outcome, new AtomicInteger());
        }
        AtomicInteger remaining = new AtomicInteger(orders);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        for (int t = 0; t < threads; t++) {
            pool.execute(() -> {
                while (remaining.getAndDecrement() > 0) {
                    try (Lease lease = locks.lock("stock:item-42").acquire(Duration.ofSeconds(30))) {
                        lease.ensureHeld();
                        counts.get(inventory.deduct(lease.fencingToken())).incrementAndGet();
                    } catch (LockLostException e) {
                        counts.get(FencedFileInventory.Outcome.STALE_TOKEN_REJECTED).incrementAndGet();
                    }
                }
            });
        }
        pool.shutdown();
        if (!pool.awaitTermination(5, TimeUnit.MINUTES)) {
            pool.shutdownNow();
            throw new IllegalStateException("orders did not finish within 5 minutes");
        }
        Map<FencedFileInventory.Outcome, Integer> result = new EnumMap<>(FencedFileInventory.Outcome.class);
        counts.forEach((outcome, count) -> result.put(outcome, count.get()));
        return result;
    }
}
