package io.locksmith.spring;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockTimeoutException;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Locked} methods returning {@code CompletableFuture}/{@code CompletionStage}: the lock is held until the
 * returned stage completes, through the asynchronous acquire, on {@code mem://} and a real redis-server. Before the
 * asynchronous API such methods were refused at startup (the lock would have been released when the method returned,
 * while its work went on on another thread).
 */
class LockedCompletableFutureTest {

    private static ServerProcess redis;

    @BeforeAll
    static void startRedis() {
        redis = StoreServers.redis();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private static String uri(String store) {
        return store.equals("redis") ? "redis://127.0.0.1:" + redis.port() : "mem://cf-" + UUID.randomUUID();
    }

    private static ApplicationContextRunner runner(String uri) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
                .withUserConfiguration(Services.class)
                .withPropertyValues("locksmith.uri=" + uri);
    }

    /** The stock of one item, written by work that continues on other threads after the method returned. */
    static class State {
        final AtomicLong quantity = new AtomicLong(1000);
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();
        final AtomicInteger runs = new AtomicInteger();
        final ExecutorService workers = Executors.newFixedThreadPool(4);
    }

    static class Stock {
        private final State state = new State();
        private final AtomicLong quantity = state.quantity;
        private final AtomicInteger inside = state.inside;
        private final AtomicInteger overlaps = state.overlaps;
        private final ConcurrentLinkedQueue<Long> tokens = state.tokens;
        private final AtomicInteger runs = state.runs;
        private final ExecutorService workers = state.workers;

        // Read through a method: the proxy's own fields are empty.
        public State state() {
            return state;
        }

        @Locked(name = "'stock:' + #sku", waitTime = "120s")
        public CompletableFuture<Long> deduct(String sku) {
            long token = LockContext.currentFencingToken();
            return CompletableFuture.supplyAsync(() -> {
                        if (inside.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        tokens.add(token);
                        return quantity.get();
                    }, workers)
                    // The write comes a little later on another thread: a holding that overlaps this one loses it.
                    .thenApplyAsync(read -> {
                        quantity.set(read - 1);
                        inside.decrementAndGet();
                        return read - 1;
                    }, CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS, workers));
        }

        @Locked(name = "'stock:' + #sku", waitTime = "100ms")
        public CompletionStage<String> busyOrNot(String sku) {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        @Locked(name = "'stock:' + #sku", waitTime = "0s", onFailure = Locked.OnFailure.SKIP)
        public CompletableFuture<String> skipIfBusy(String sku) {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        @Locked(name = "'stock:' + #sku", waitTime = "120s")
        public CompletableFuture<String> until(String sku, CompletableFuture<String> done) {
            runs.incrementAndGet();
            return done;
        }

        @Locked(name = "'stock:' + #sku")
        public CompletableFuture<String> throwing(String sku) {
            throw new IllegalStateException("thrown by the method");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {
        @Bean(destroyMethod = "")
        Stock stock() {
            return new Stock();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mem", "redis"})
    void twoHundredConcurrentCallsKeepTheStockExact(String store) {
        runner(uri(store)).run(context -> {
            Stock stock = context.getBean(Stock.class);
            State state = stock.state();
            String sku = "A-" + UUID.randomUUID();
            try {
                List<CompletableFuture<Long>> calls = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    calls.add(stock.deduct(sku));
                }
                CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(3, TimeUnit.MINUTES);
                assertThat(state.quantity.get()).as("stock after 200 deductions").isEqualTo(800);
                assertThat(state.overlaps.get()).isZero();
                List<Long> tokens = new ArrayList<>(state.tokens);
                assertThat(tokens).hasSize(200).isSorted().doesNotHaveDuplicates();
                LockClient client = context.getBean(LockClient.class);
                assertThat(client.heldCount()).isZero();
                assertThat(client.inspect("stock:" + sku)).isEmpty();
            } finally {
                state.workers.shutdownNow();
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"mem", "redis"})
    void theLockIsHeldUntilTheFutureCompletesAndFailuresArriveThroughIt(String store) {
        String uri = uri(store);
        runner(uri).run(context -> {
            Stock stock = context.getBean(Stock.class);
            State state = stock.state();
            LockClient client = context.getBean(LockClient.class);
            String sku = "B-" + UUID.randomUUID();
            String name = "stock:" + sku;

            CompletableFuture<String> done = new CompletableFuture<>();
            CompletableFuture<String> call = stock.until(sku, done);
            await().atMost(Duration.ofSeconds(30)).until(() -> state.runs.get() == 1);
            assertThat(client.inspect(name)).isPresent();
            assertThat(call).isNotDone();
            done.complete("finished");
            assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("finished");
            assertThat(client.inspect(name)).as("released before the result was delivered").isEmpty();

            CompletableFuture<String> failing = new CompletableFuture<>();
            CompletableFuture<String> failed = stock.until(sku, failing);
            await().atMost(Duration.ofSeconds(30)).until(() -> state.runs.get() == 2);
            failing.completeExceptionally(new IllegalArgumentException("work failed"));
            assertThatThrownBy(() -> failed.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalArgumentException.class);
            assertThat(client.inspect(name)).isEmpty();

            assertThatThrownBy(() -> stock.throwing(sku).join()).isInstanceOf(CompletionException.class)
                    .hasRootCauseMessage("thrown by the method");
            assertThat(client.inspect(name)).isEmpty();

            try (LockClient other = LockClient.open(uri); Lease busy = other.lock(name).acquire()) {
                CompletionStage<String> timedOut = stock.busyOrNot(sku);
                assertThatThrownBy(() -> timedOut.toCompletableFuture().get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(LockTimeoutException.class).hasMessageContaining(name);
                assertThat(stock.skipIfBusy(sku).get(30, TimeUnit.SECONDS)).isNull();
                assertThat(state.runs.get()).isEqualTo(2);
                assertThat(busy.isHeld()).isTrue();
            }
            assertThat(stock.skipIfBusy(sku).get(30, TimeUnit.SECONDS)).isEqualTo("ran");
            assertThat(client.heldCount()).isZero();
            state.workers.shutdownNow();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"mem", "redis"})
    void cancellingTheResultCancelsTheWaitOrReleasesTheLock(String store) {
        String uri = uri(store);
        runner(uri).run(context -> {
            Stock stock = context.getBean(Stock.class);
            State state = stock.state();
            LockClient client = context.getBean(LockClient.class);
            String sku = "C-" + UUID.randomUUID();
            String name = "stock:" + sku;
            try (LockClient other = LockClient.open(uri)) {
                Lease busy = other.lock(name).acquire();
                CompletableFuture<String> waiting = stock.until(sku, new CompletableFuture<>());
                assertThat(waiting.cancel(false)).isTrue();
                busy.close();
                // Nothing queued for the cancelled call keeps the lock: another client gets it at once.
                Lease next = await().atMost(Duration.ofSeconds(30))
                        .until(() -> other.lock(name).tryAcquire().orElse(null), lease -> lease != null);
                next.close();
                assertThat(state.runs.get()).isZero();

                CompletableFuture<String> work = new CompletableFuture<>();
                CompletableFuture<String> running = stock.until(sku, work);
                await().atMost(Duration.ofSeconds(30)).until(() -> state.runs.get() == 1);
                running.cancel(false);
                assertThat(work).as("the cancel is passed to the method's future").isCancelled();
                await().atMost(Duration.ofSeconds(30)).until(() -> client.heldCount() == 0);
                assertThat(client.inspect(name)).isEmpty();
            }
            state.workers.shutdownNow();
        });
    }
}
