package io.locksmith.tck.fault;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.LockTimeoutException;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The outage rules (docs/SPEC.md R9.14, R9.15): a single store killed, so that it refuses connections, and started
 * again. Separate from {@link LockFaultTck} because its hooks kill and restart the whole store. Extend it for a store
 * whose client reports a refused connection (a {@code java.net.ConnectException} in the cause chain of the provider's
 * {@code LockStoreException}); each test opens its clients with {@link #newClient()} on a live store and leaves it
 * live.
 *
 * <pre>{@code
 * class RedisOutageFaultTest extends OutageFaultTck {
 *     static final ServerProcess redis = StoreServers.redis();
 *     protected LockClient newClient() { return LockClient.open("redis://127.0.0.1:" + redis.port() + "?timeout=1s"); }
 *     protected void killStore() { redis.kill(); }
 *     protected void restartStore() { redis.restart(); }
 * }
 * }</pre>
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public abstract class OutageFaultTck {

    /** Local waiters of R9.15: asynchronous ones, which hold no thread, and a few blocking threads. */
    static final int ASYNC_WAITERS = 1_000;
    static final int THREAD_WAITERS = 8;

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private boolean killed;

    /** A new client of the live store, with a command time-out under the kit's slack. */
    protected abstract LockClient newClient();

    /** Kills the store (SIGKILL, or whatever makes its port refuse connections); returns when it is gone. */
    protected abstract void killStore();

    /** Starts the killed store again on the same address; returns when it accepts connections. */
    protected abstract void restartStore();

    protected TckTiming timing() {
        return TckTiming.defaults();
    }

    private LockClient client() {
        LockClient client = newClient();
        clients.add(client);
        return client;
    }

    @AfterEach
    void leaveTheStoreLive() {
        if (killed) {
            restartStore();
            killed = false;
        }
        clients.forEach(LockClient::close);
        clients.clear();
    }

    private void kill() {
        killed = true;
        killStore();
    }

    private void restart() {
        restartStore();
        killed = false;
    }

    @Test
    public void required_r9_14_aKnownOutageFailsCallsFast() {
        TckTiming timing = timing();
        Duration slack = timing.slack();
        LockClient client = client();
        client.lock(name()).acquire(slack).close();
        kill();

        // The first call finds the store refusing connections: a store error, not a time-out, within R7.7's bound.
        Throwable first = thrown(() -> client.lock(name()).acquire(slack));
        assertInstanceOf(LockStoreException.class, first, "acquire(" + slack + ") on a killed store");

        // From then on the outage is known: calls that would wait ten times the slack fail at once, naming the store.
        Duration longWait = slack.multipliedBy(10);
        long acquireMs = failsFast(() -> client.lock(name()).acquire(longWait), "acquire(" + longWait + ")", slack);
        long asyncMs = failsFast(() -> client.lock(name()).acquireAsync(longWait).join(), "acquireAsync(" + longWait
                + ")", slack);
        long tryMs = failsFast(() -> client.lock(name()).tryAcquire(), "tryAcquire()", slack);
        long inspectMs = failsFast(() -> client.inspect(name(), slack), "inspect(name, " + slack + ")", slack);
        Throwable named = thrown(() -> client.lock(name()).acquire(longWait));
        assertTrue(named.getMessage() != null && named.getMessage().contains("unreachable since"),
                "the error says the store is unreachable and since when: " + named.getMessage());
        System.out.printf("R9.14: known outage: acquire(%s) %d ms, acquireAsync %d ms, tryAcquire() %d ms,"
                + " inspect %d ms%n", longWait, acquireMs, asyncMs, tryMs, inspectMs);

        // Back: the client's probe ends the outage without any caller's help.
        restart();
        long back = System.nanoTime();
        awaitUsable(client, name(), slack);
        System.out.printf("R9.14: usable %d ms after the restart%n", millisSince(back));
    }

    @Test
    public void required_r9_15_aStoreKilledUnderAThousandWaitersEndsEveryWaitAndIsUsableAfterItsRestart()
            throws InterruptedException {
        TckTiming timing = timing();
        Duration slack = timing.slack();
        Duration wait = slack.multipliedBy(5);
        LockClient holder = client();
        LockClient waiters = client();
        String name = name();
        Lease held = holder.lock(name, LockOptions.builder().leaseTime(timing.longLease()).build()).acquire(slack);

        List<Throwable> threadOutcomes = new CopyOnWriteArrayList<>();
        AtomicLong lastEnd = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREAD_WAITERS; i++) {
            Thread thread = new Thread(() -> {
                try {
                    waiters.lock(name).acquire(wait).close();
                    threadOutcomes.add(new AssertionError("acquired a lock whose holder never released it"));
                } catch (Throwable t) {
                    threadOutcomes.add(t);
                } finally {
                    lastEnd.accumulateAndGet(System.nanoTime(), Math::max);
                }
            }, "r9-15-waiter-" + i);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        List<CompletableFuture<Lease>> asyncWaits = new ArrayList<>();
        for (int i = 0; i < ASYNC_WAITERS; i++) {
            CompletableFuture<Lease> future = waiters.lock(name).acquireAsync(wait);
            future.whenComplete((lease, failure) -> lastEnd.accumulateAndGet(System.nanoTime(), Math::max));
            asyncWaits.add(future);
        }
        await("every waiting thread parks").atMost(slack.multipliedBy(2)).until(() -> threads.stream()
                .allMatch(t -> t.getState() == Thread.State.TIMED_WAITING || t.getState() == Thread.State.WAITING));
        assertTrue(asyncWaits.stream().noneMatch(CompletableFuture::isDone), "the lock is held: nobody got it");

        long killedAt = System.nanoTime();
        kill();
        Duration bound = wait.plus(slack);
        for (Thread thread : threads) {
            thread.join(bound.plus(slack).toMillis());
            assertFalse(thread.isAlive(), thread.getName() + " still waits " + bound + " after the kill");
        }
        for (CompletableFuture<Lease> future : asyncWaits) {
            Throwable failure = future.handle((lease, t) -> t).completeOnTimeout(new AssertionError("still waiting"),
                    bound.plus(slack).toMillis(), TimeUnit.MILLISECONDS).join();
            assertInstanceOf(LockStoreException.class, failure, "an asynchronous wait on a killed store");
        }
        assertEquals(THREAD_WAITERS, threadOutcomes.size());
        for (Throwable outcome : threadOutcomes) {
            assertInstanceOf(LockStoreException.class, outcome, "a blocking wait on a killed store");
            assertFalse(outcome instanceof LockTimeoutException);
        }
        long endedMs = TimeUnit.NANOSECONDS.toMillis(lastEnd.get() - killedAt);
        assertTrue(endedMs <= bound.toMillis(), "the last of " + (ASYNC_WAITERS + THREAD_WAITERS) + " waits ended "
                + endedMs + " ms after the kill; each waited at most " + wait + " (+ " + slack + ")");
        System.out.printf("R9.15: %d waits ended within %d ms of the kill%n", ASYNC_WAITERS + THREAD_WAITERS, endedMs);

        // The store is back, and the holder lets go (a store that lost its data lost the lock already): the lock is
        // usable within the slack, once the client's probe has seen the store answer.
        restart();
        long back = System.nanoTime();
        try {
            held.close();
        } catch (RuntimeException lostWithTheStore) {
            // the holder's lease ended with the store's data
        }
        awaitUsable(waiters, name, slack);
        System.out.printf("R9.15: the lock was usable %d ms after the restart%n", millisSince(back));
    }

    /** Waits for {@code name} to be acquired and released through {@code client}, at most {@code within}. */
    private static void awaitUsable(LockClient client, String name, Duration within) {
        await("the lock is usable after the restart").atMost(within).pollInterval(Duration.ofMillis(20))
                .ignoreExceptionsInstanceOf(LockStoreException.class).until(() -> {
                    Optional<Lease> lease = client.lock(name).tryAcquire();
                    lease.ifPresent(Lease::close);
                    return lease.isPresent();
                });
    }

    /** Runs {@code call}, which must throw {@link LockStoreException} (not a time-out) within {@code fast}. */
    private static long failsFast(Supplier<?> call, String what, Duration fast) {
        long start = System.nanoTime();
        Throwable thrown = thrown(call);
        long took = millisSince(start);
        assertInstanceOf(LockStoreException.class, thrown, what + " on a store known to refuse connections");
        assertFalse(thrown instanceof LockTimeoutException, what);
        assertTrue(took <= fast.toMillis(), what + " took " + took + " ms on a store known to refuse connections: it"
                + " must fail at once, not wait (" + fast.toMillis() + " ms at most)");
        return took;
    }

    private static Throwable thrown(Supplier<?> call) {
        try {
            Object result = call.get();
            if (result instanceof Optional<?> optional && optional.isPresent()
                    && optional.get() instanceof AutoCloseable closeable) {
                closeable.close();
            } else if (result instanceof AutoCloseable closeable) {
                closeable.close();
            }
            return null;
        } catch (java.util.concurrent.CompletionException e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (Throwable t) {
            return t;
        }
    }

    private static String name() {
        return "outage-" + UUID.randomUUID();
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
