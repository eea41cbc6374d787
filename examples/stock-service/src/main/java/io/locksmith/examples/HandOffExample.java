package io.locksmith.examples;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The lease hand-off of docs/SPRING.md ("Async, reactive, coroutines and threads") and the README, compiled with the
 * build: a request thread acquires, hands the lease to a worker that finishes the work and closes it, and serves its
 * next request meanwhile. Run it with {@code LOCKSMITH_URI} set (or nothing, for {@code mem://}).
 */
public final class HandOffExample {

    private HandOffExample() {
    }

    public static void main(String[] args) throws Exception {
        String uri = LockClient.environmentUri().orElse("mem://hand-off-example");
        ExecutorService workers = Executors.newFixedThreadPool(2);
        try (LockClient locks = LockClient.open(uri)) {
            DistributedLock lock = locks.lock("order:1");

            // A blocking acquire binds the lease to this thread: a nested acquire here would re-enter it.
            Lease lease = lock.acquire(Duration.ofSeconds(3));
            lease.handOff();                       // from now on this thread waits like anyone else
            CompletableFuture<Void> shipped = CompletableFuture.runAsync(() -> {
                try (lease) {                      // the worker owns the lease and releases it
                    ship(1, lease.fencingToken());
                }
            }, workers);

            // Callers that never nest can say so: a lease of this lock is never re-entered by any thread.
            DistributedLock orders = locks.lock("order:2", LockOptions.builder().reentrant(false).build());
            try (Lease other = orders.acquire(Duration.ofSeconds(3))) {
                ship(2, other.fencingToken());
            }

            // The asynchronous acquire holds no thread while it waits; its leases are never re-entered.
            CompletableFuture<Void> third = lock.acquireAsync(Duration.ofSeconds(10))
                    .thenCompose(next -> {
                        ship(1, next.fencingToken());
                        return next.closeAsync();
                    });

            shipped.join();
            third.join();
        } finally {
            workers.shutdown();
        }
    }

    private static void ship(long order, long fencingToken) {
        System.out.println("shipping order " + order + " with fencing token " + fencingToken);
    }
}
