package io.locksmith;

import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.ProviderClientBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 29, item 3: a client never has more provider calls in flight than the provider's
 * {@code maxConcurrentCalls()}, or the URI's {@code maxInFlight}; callers past it wait for their turn within their own
 * bound, and one whose bound runs out first fails with an error that names the limit.
 */
class InFlightBoundTest {

    /** A store whose acquires all wait for one latch, counting how many are inside at once. */
    private static final class GatedProvider extends StubStores.Stub {
        final CountDownLatch open = new CountDownLatch(1);
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger mostInside = new AtomicInteger();
        final AtomicInteger entered = new AtomicInteger();
        final AtomicInteger token = new AtomicInteger();
        final int stated;
        final Duration commandTimeout;

        /** @param commandTimeout long enough in most tests that no call is abandoned and retried at its bound */
        GatedProvider(int stated, Duration commandTimeout) {
            super("gated");
            this.stated = stated;
            this.commandTimeout = commandTimeout;
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            entered.incrementAndGet();
            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            try {
                if (!open.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never opened the gate");
                }
                return Optional.of(new Grant(request.name(), request.owner(), token.incrementAndGet(), request.ttl()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LockStoreException(request.name(), "interrupted", e);
            } finally {
                inside.decrementAndGet();
            }
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            return true;
        }

        @Override
        public boolean release(Grant grant) {
            return true;
        }

        @Override
        public Duration commandTimeout() {
            return commandTimeout;
        }

        @Override
        public int maxConcurrentCalls() {
            return stated;
        }
    }

    private static LockClient open(GatedProvider store, String query) {
        return ProviderClientBuilder.create().uri("gated://" + query).factory(store).build();
    }

    /** Six callers on six names with a limit of {@code limit}: that many reach the store until the first ones end. */
    private static void assertAtMostInFlight(GatedProvider store, LockClient client, int limit) throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(6);
        try {
            List<Future<Lease>> leases = new ArrayList<>();
            List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int i = 0; i < 6; i++) {
                String name = "bound-" + UUID.randomUUID();
                leases.add(callers.submit(() -> {
                    threads.add(Thread.currentThread());
                    return client.lock(name).tryAcquire(Duration.ofSeconds(20)).orElseThrow();
                }));
            }
            // Every caller is either inside the store or parked waiting for its turn: nothing more can enter.
            await().atMost(Duration.ofSeconds(10)).until(() -> store.entered.get() == limit && threads.size() == 6
                    && threads.stream().filter(t -> t.getState() == Thread.State.TIMED_WAITING
                    || t.getState() == Thread.State.WAITING).count() == 6);
            assertEquals(limit, store.entered.get(), "calls that reached the store while " + limit + " were in flight");
            store.open.countDown();
            for (Future<Lease> lease : leases) {
                lease.get(10, TimeUnit.SECONDS).close();
            }
            assertEquals(6, store.entered.get());
            assertEquals(limit, store.mostInside.get(), "the most calls in the store at once");
        } finally {
            store.open.countDown();
            callers.shutdownNow();
        }
    }

    @Test
    void theProvidersStatedNumberBoundsTheCallsInFlight() throws Exception {
        GatedProvider store = new GatedProvider(2, Duration.ofSeconds(30));
        try (LockClient client = open(store, "")) {
            assertAtMostInFlight(store, client, 2);
        }
    }

    @Test
    void theUrisMaxInFlightOverridesTheProvider() throws Exception {
        GatedProvider store = new GatedProvider(64, Duration.ofSeconds(30));
        try (LockClient client = open(store, "?maxInFlight=3")) {
            assertAtMostInFlight(store, client, 3);
        }
    }

    @Test
    void aCallerWhoseBoundEndsBeforeItsTurnFailsNamingTheLimit() throws Exception {
        GatedProvider store = new GatedProvider(1, Duration.ofMillis(300));
        ExecutorService first = Executors.newSingleThreadExecutor();
        try (LockClient client = open(store, "")) {
            Future<Optional<Lease>> inside = first.submit(() -> client.lock("bound-" + UUID.randomUUID())
                    .tryAcquire(Duration.ofSeconds(20)));
            await().atMost(Duration.ofSeconds(10)).until(() -> store.inside.get() == 1);
            long start = System.nanoTime();
            // tryAcquire() is bounded by the command time-out (300 ms), all of it spent waiting for the one turn.
            LockStoreException failure = assertThrows(LockStoreException.class,
                    () -> client.lock("bound-" + UUID.randomUUID()).tryAcquire());
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(failure.getMessage().contains("maxInFlight") && failure.getMessage().contains("1 store calls"),
                    failure.getMessage());
            assertTrue(tookMillis < 2_000, "failed after " + tookMillis + " ms for a 300 ms bound");
            assertEquals(1, store.entered.get(), "the caller without a turn reached the store");
            store.open.countDown();
            inside.get(10, TimeUnit.SECONDS).orElseThrow().close();
        } finally {
            store.open.countDown();
            first.shutdownNow();
        }
    }

    @Test
    void aMaxInFlightBelowOneIsAConfigurationErrorNamingIt() {
        for (String value : List.of("0", "-1", "many", "70000")) {
            LockConfigurationException e = assertThrows(LockConfigurationException.class,
                    () -> open(new GatedProvider(2, Duration.ofSeconds(30)), "?maxInFlight=" + value).close());
            assertTrue(e.getMessage().contains("maxInFlight") && e.getMessage().contains(value), e.getMessage());
        }
    }
}
