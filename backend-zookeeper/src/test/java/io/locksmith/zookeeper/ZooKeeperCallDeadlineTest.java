package io.locksmith.zookeeper;

import io.locksmith.HolderIdentity;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.fault.TcpProxy;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The provider's {@link LockProvider#callTimeLimit()}: every call ends within the connection time-out, whatever the
 * server does, because the shared client then calls it on the caller's thread with nothing else to stop it. Each
 * test calls the provider itself (not through a lock client, which could cut a call short on its own) and bounds
 * the call's own future: the promise is the provider's, so the bound is asserted on the call.
 */
class ZooKeeperCallDeadlineTest {

    /**
     * The connection time-out of the clients under test: the limit each call must keep. Long enough for the set-up's
     * own calls (a first acquire makes the lock's container: three round trips) on a machine at load 10 and more.
     */
    private static final Duration LIMIT = Duration.ofSeconds(2);
    /** What a call may take beyond its limit: the scheduling of its thread on a loaded machine, not a round trip. */
    private static final Duration MARGIN = Duration.ofSeconds(2);
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private static EmbeddedZooKeeper server;

    @BeforeAll
    static void startServer() {
        server = EmbeddedZooKeeper.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    private static Owner owner(String id) {
        return new Owner(id, new HolderIdentity("deadline-test", "test", "main", 1, null));
    }

    /** A provider through {@code proxy}, with a session long enough to outlive every silence of these tests. */
    private static LockProvider providerThrough(TcpProxy proxy) {
        return new ZooKeeperLockProviderFactory().create(LockUri.parse("zookeeper://127.0.0.1:" + proxy.port()
                        + "?connectionTimeout=" + LIMIT.toMillis() + "ms&sessionTimeout=30s"),
                new ProviderContext("deadline-test", (grant, reason, cause) -> { }));
    }

    /**
     * Runs {@code call} on its own thread and returns how it ended, failing the test if it did not end within the
     * limit plus the margin.
     */
    private static <T> CompletableFuture<T> endsInTime(String what, java.util.function.Supplier<T> call)
            throws InterruptedException {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                result.complete(call.get());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }, "deadline-test-caller");
        caller.setDaemon(true);
        long start = System.nanoTime();
        caller.start();
        try {
            result.get(LIMIT.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException expected) {
            // how it ended is the test's to check
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError(what + " did not end within " + LIMIT.toMillis() + " ms + "
                    + MARGIN.toMillis() + " ms: the call's limit was not kept", e);
        }
        caller.join(TimeUnit.SECONDS.toMillis(1));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMillis >= LIMIT.toMillis() - 50, what + " ended after " + tookMillis + " ms: before its limit,"
                + " so the silence was not what ended it");
        return result;
    }

    /**
     * Ends the silence with a reset, as a client's own read time-out would (later): the provider's close then does not
     * wait for the answer to its close-session request, which the silence swallowed.
     */
    private static void endSilence(TcpProxy proxy) {
        proxy.heal();
        proxy.resetAll();
    }

    private static void assertStoreFailure(CompletableFuture<?> ended) {
        ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                ended::get);
        assertInstanceOf(LockStoreException.class, failure.getCause(), "the call ended otherwise: " + failure);
    }

    @Test
    void everyCallEndsWithinItsLimitWhileTheServerIsSilent() throws Exception {
        String name = unique("silent");
        try (TcpProxy proxy = TcpProxy.start("127.0.0.1", server.port());
             LockProvider provider = providerThrough(proxy)) {
            assertEquals(Optional.of(LIMIT), provider.callTimeLimit());
            Owner holder = owner("holder-" + UUID.randomUUID());
            Grant grant = provider.tryAcquire(new AcquireRequest(name, holder, Duration.ofSeconds(30), false))
                    .orElseThrow();

            // Bytes vanish both ways and nothing is closed: the client is still connected as far as it knows, and
            // only the call's own deadline can end a wait for an answer.
            proxy.blackhole();
            Owner other = owner("other-" + UUID.randomUUID());
            List<Function<LockProvider, Object>> calls = List.of(
                    p -> p.tryAcquire(new AcquireRequest(name, other, Duration.ofSeconds(30), false)),
                    p -> p.tryAcquire(new AcquireRequest(name, other, Duration.ofSeconds(30), true)),
                    p -> p.renew(grant, Duration.ofSeconds(30)),
                    p -> p.inspect(name),
                    p -> p.list(""),
                    p -> {
                        p.releaseAmbiguous(name, other);
                        return null;
                    },
                    p -> p.release(grant));
            try {
                for (int i = 0; i < calls.size(); i++) {
                    Function<LockProvider, Object> call = calls.get(i);
                    assertStoreFailure(endsInTime("call " + i, () -> call.apply(provider)));
                }
            } finally {
                endSilence(proxy);
            }
        }
    }

    @Test
    void anInterruptDuringACallIsSeenWhenTheCallEndsByItsDeadline() throws Exception {
        String name = unique("interrupted");
        try (TcpProxy proxy = TcpProxy.start("127.0.0.1", server.port());
             LockProvider provider = providerThrough(proxy)) {
            proxy.blackhole();
            try {
                CompletableFuture<Long> endedAfter = new CompletableFuture<>();
                CompletableFuture<Boolean> flagAfterwards = new CompletableFuture<>();
                CountDownLatch calling = new CountDownLatch(1);
                Thread caller = new Thread(() -> {
                    long start = System.nanoTime();
                    calling.countDown();
                    try {
                        provider.inspect(name);
                    } catch (RuntimeException expected) {
                        // no answer within the limit
                    }
                    endedAfter.complete(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                    flagAfterwards.complete(Thread.currentThread().isInterrupted());
                }, "deadline-test-interrupted");
                caller.setDaemon(true);
                caller.start();
                calling.await();
                caller.interrupt();
                assertTrue(flagAfterwards.get(LIMIT.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS),
                        "the interrupt flag was lost");
                // As the SPI says: within a call on the caller's thread, the interrupt is seen when the call ends.
                assertTrue(endedAfter.get() <= LIMIT.plus(MARGIN).toMillis(), endedAfter.get() + " ms");
            } finally {
                endSilence(proxy);
            }
        }
    }

    /**
     * An acquire whose create reaches the server only after the call gave up: the node it makes belongs to nobody
     * and must not keep the lock taken for the life of the session (30 s here). Its late answer has it deleted.
     */
    @Test
    void theNodeOfAnAcquireThatEndedByItsDeadlineIsDeletedWhenItsCreateArrivesLate() throws Exception {
        String name = unique("late-create");
        String lockPath = new LockPaths(ZooKeeperSettings.DEFAULT_BASE_PATH).lockPath(name);
        List<WatchedEvent> events = new CopyOnWriteArrayList<>();
        CountDownLatch connected = new CountDownLatch(1);
        try (ZooKeeper observer = new ZooKeeper(server.connectString(), 30_000, event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
             TcpProxy proxy = TcpProxy.start("127.0.0.1", server.port());
             LockProvider provider = providerThrough(proxy)) {
            assertTrue(connected.await(10, TimeUnit.SECONDS), "the observer did not connect");
            observer.addWatch(lockPath, events::add, AddWatchMode.PERSISTENT_RECURSIVE);

            // A holder keeps the lock's container node in place: the late create must find it, or it would fail.
            Grant held = provider.tryAcquire(new AcquireRequest(name, owner("holder-" + UUID.randomUUID()),
                    Duration.ofSeconds(30), false)).orElseThrow();

            // Every chunk either way is forwarded late: the request reaches the server after the call's limit.
            proxy.delay(LIMIT.plusMillis(1000));
            Owner owner = owner("late-" + UUID.randomUUID());
            String ownNodes = lockPath + "/" + LockPaths.ownerPrefix(owner.id());
            assertStoreFailure(endsInTime("the acquire",
                    () -> provider.tryAcquire(new AcquireRequest(name, owner, Duration.ofSeconds(30), false))));
            proxy.delay(Duration.ZERO);

            await("the late create made its node").atMost(PATIENCE).until(() -> events.stream()
                    .anyMatch(e -> e.getType() == Watcher.Event.EventType.NodeCreated
                            && e.getPath().startsWith(ownNodes)));
            String node = events.stream().filter(e -> e.getType() == Watcher.Event.EventType.NodeCreated
                    && e.getPath().startsWith(ownNodes)).findFirst().orElseThrow().getPath();
            await("the late node is deleted, though the session lives on").atMost(PATIENCE).until(() -> events.stream()
                    .anyMatch(e -> e.getType() == Watcher.Event.EventType.NodeDeleted && node.equals(e.getPath())));

            assertTrue(provider.release(held));
            Owner next = owner("next-" + UUID.randomUUID());
            Optional<Grant> free = provider.tryAcquire(new AcquireRequest(name, next, Duration.ofSeconds(30), false));
            assertTrue(free.isPresent(), "the lock is still taken after the late node went");
            assertTrue(provider.release(free.get()));
        }
    }
}
