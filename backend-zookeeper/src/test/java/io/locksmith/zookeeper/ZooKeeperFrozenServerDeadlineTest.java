package io.locksmith.zookeeper;

import io.locksmith.HolderIdentity;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every provider call keeps its deadline (the connection time-out) while the one server is frozen with SIGSTOP
 * under an open client, across the whole freeze: the read time-out that drops the connection, the reconnection
 * attempts to a server whose kernel still completes TCP handshakes for it, the session timeout after which Curator
 * gives the session up and replaces its ZooKeeper handle. The integration tests' dead-store matrix saw a
 * {@code tryAcquire()} take 2.2 s against a 1 s deadline in about one run of ten; this test makes many calls over
 * that span, prints each call's time, and shows where a call that overran it was waiting.
 *
 * <p>A frozen process's kernel completes TCP handshakes for it only until its listen queue is full (51 connections
 * for ZooKeeper's backlog of 50); after that a handshake neither completes nor fails. The provider's check for
 * refused connections ({@link Requests#refusal}) then lasted its whole time-out, 250 ms, and ran after the call's
 * deadline, once or twice a call: with the queue filled at the freeze, as the client's own reconnections and checks
 * fill it over a long freeze, 8 of 12 calls took about 1,250 ms against their 1,000 ms.
 *
 * <p>The server is a child JVM ({@link ServerMain}), so that it can be frozen as a whole, sockets and all.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperFrozenServerDeadlineTest {

    /** The URI's connectionTimeout and sessionTimeout: those of the dead-store matrix. */
    private static final Duration LIMIT = Duration.ofSeconds(1);
    private static final Duration SESSION = Duration.ofSeconds(4);
    /**
     * What a call may take beyond its deadline: the scheduling of its thread on a loaded machine (two cores shared by
     * several builds; 13 ms measured at load 15). Under the 250 ms of one check for refused connections after the
     * deadline, which is what this test catches.
     */
    private static final Duration MARGIN = Duration.ofMillis(200);
    /** Connections that fill a frozen server's listen queue (Java's default backlog of 50, plus one) and more. */
    private static final int LISTEN_QUEUE_FILL = 60;
    /** Long enough to pass the read time-out (2/3 of the session), the session timeout and a reset after it. */
    private static final Duration FROZEN_FOR = SESSION.multipliedBy(3);

    /** The server of this test: an {@link EmbeddedZooKeeper} on the port given as the only argument. */
    public static final class ServerMain {
        private ServerMain() {
        }

        public static void main(String[] args) throws InterruptedException {
            EmbeddedZooKeeper server = EmbeddedZooKeeper.start(Integer.parseInt(args[0]));
            System.out.println("serving on " + server.connectString());
            Thread.currentThread().join(); // until the test closes (kills) it
        }
    }

    private static ServerProcess startServer() throws Exception {
        int port = FreePorts.next();
        Path dir = Files.createTempDirectory("locksmith-zk-frozen");
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return ServerProcess.start("zookeeper-" + port, List.of(java, "-Xmx96m", "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1", "-Djava.io.tmpdir=" + data, "-cp",
                        System.getProperty("java.class.path"), ServerMain.class.getName(), Integer.toString(port)),
                dir, port, "a JDK (the server runs as a java child process)").deleteWorkDirOnClose();
    }

    /**
     * A provider on the server. A new server JVM may not serve a loaded machine's first session within the 1 s
     * connection time-out: tried until it connects.
     */
    private static LockProvider openProvider(ServerProcess server) {
        LockUri uri = LockUri.parse("zookeeper://127.0.0.1:" + server.port() + "/frozen?connectionTimeout="
                + LIMIT.toMillis() + "ms&sessionTimeout=" + SESSION.toMillis() + "ms");
        AtomicReference<LockProvider> opened = new AtomicReference<>();
        await("a first session on the new server").atMost(Duration.ofSeconds(30))
                .ignoreException(LockStoreException.class)
                .until(() -> {
                    opened.set(new ZooKeeperLockProviderFactory().create(uri,
                            new ProviderContext("frozen-test", (grant, reason, cause) -> { })));
                    return true;
                });
        return opened.get();
    }

    private static Owner owner(String id) {
        return new Owner(id, new HolderIdentity("frozen-test", "test", "main", 1, null));
    }

    /** One measured call: when it started (ms after the freeze), how long it took, how it ended. */
    private record Measured(String call, long startedMillis, long tookMillis, String outcome, String stackIfLate) {
        @Override
        public String toString() {
            return String.format("%6d ms after the freeze: %-26s %5d ms  %s", startedMillis, call, tookMillis, outcome);
        }
    }

    /**
     * What the client's reconnections and refusal checks do over a long freeze, done at once: fills the frozen
     * server's listen queue, so that a TCP handshake with it neither completes nor fails. The sockets go to
     * {@code opened}, to be closed by the caller.
     */
    private static void fillListenQueue(int port, List<Socket> opened) throws IOException {
        for (int i = 0; i < LISTEN_QUEUE_FILL; i++) {
            Socket socket = new Socket();
            opened.add(socket);
            try {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 100);
            } catch (SocketTimeoutException full) {
                // the queue is full: the handshakes after it hang, which is the point
            }
        }
    }

    private static String stackOf(Thread thread) {
        return Arrays.stream(thread.getStackTrace()).map(frame -> "\n        at " + frame)
                .collect(Collectors.joining());
    }

    @Test
    void everyCallKeepsItsDeadlineWhileTheServerIsFrozenAndTheClientRecoversWhenItResumes() throws Exception {
        ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "frozen-test-watchdog");
            thread.setDaemon(true);
            return thread;
        });
        try (ServerProcess server = startServer();
             LockProvider provider = openProvider(server)) {
            String heldName = "frozen-held-" + UUID.randomUUID();
            Grant grant = provider.tryAcquire(new AcquireRequest(heldName, owner("holder-" + UUID.randomUUID()),
                    Duration.ofSeconds(30), false)).orElseThrow();

            List<Function<LockProvider, Object>> calls = List.of(
                    p -> p.tryAcquire(new AcquireRequest("frozen-" + UUID.randomUUID(),
                            owner("one-shot-" + UUID.randomUUID()), Duration.ofSeconds(30), false)),
                    p -> p.inspect(heldName),
                    p -> p.tryAcquire(new AcquireRequest("frozen-" + UUID.randomUUID(),
                            owner("waiter-" + UUID.randomUUID()), Duration.ofSeconds(30), true)),
                    p -> {
                        p.releaseAmbiguous("frozen-" + UUID.randomUUID(), owner("gone-" + UUID.randomUUID()));
                        return null;
                    },
                    p -> p.renew(grant, Duration.ofSeconds(30)));
            List<String> names = List.of("tryAcquire", "inspect", "tryAcquire (waiting)", "releaseAmbiguous", "renew");

            List<Measured> measured = new ArrayList<>();
            Thread caller = Thread.currentThread();
            server.pause();
            long frozenAt = System.nanoTime();
            List<Socket> queued = new ArrayList<>();
            try {
                fillListenQueue(server.port(), queued);
                for (int i = 0; System.nanoTime() - frozenAt < FROZEN_FOR.toNanos(); i++) {
                    int which = i % calls.size();
                    AtomicReference<String> lateStack = new AtomicReference<>();
                    long start = System.nanoTime();
                    // Where the caller waits once it is past its deadline: the stack of a late call says what it
                    // waited for.
                    ScheduledFuture<?> look = watchdog.schedule(() -> lateStack.set(stackOf(caller)),
                            LIMIT.plus(MARGIN.dividedBy(2)).toMillis(), TimeUnit.MILLISECONDS);
                    String outcome;
                    try {
                        Object result = calls.get(which).apply(provider);
                        outcome = "returned " + result;
                    } catch (LockStoreException e) {
                        outcome = "LockStoreException: " + e.getMessage();
                    } catch (RuntimeException e) {
                        outcome = e.toString();
                    }
                    long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    look.cancel(false);
                    Measured call = new Measured(names.get(which), TimeUnit.NANOSECONDS.toMillis(start - frozenAt),
                            took, outcome, took > LIMIT.plus(MARGIN).toMillis() ? lateStack.get() : null);
                    System.out.println("frozen server: " + call);
                    measured.add(call);
                }
            } finally {
                server.resume();
                for (Socket socket : queued) {
                    socket.close();
                }
            }
            long longest = measured.stream().mapToLong(Measured::tookMillis).max().orElse(0);
            System.out.printf("frozen server: %d calls, the longest %d ms (deadline %d ms)%n", measured.size(), longest,
                    LIMIT.toMillis());
            List<Measured> late = measured.stream()
                    .filter(m -> m.tookMillis() > LIMIT.plus(MARGIN).toMillis()).toList();
            assertTrue(late.isEmpty(), late.size() + " of " + measured.size() + " calls overran their deadline of "
                    + LIMIT.toMillis() + " ms by more than " + MARGIN.toMillis() + " ms:\n" + late.stream()
                    .map(m -> m + "\n    waiting at:" + m.stackIfLate()).collect(Collectors.joining("\n")));

            // Back from the freeze: the client reconnects (a new session, the old one expired) and serves again.
            long resumedAt = System.nanoTime();
            String after = "frozen-after-" + UUID.randomUUID();
            Owner afterOwner = owner("after-" + UUID.randomUUID());
            AtomicReference<Grant> regained = new AtomicReference<>();
            await("a lock can be taken again after the server resumed").atMost(Duration.ofSeconds(30))
                    .ignoreException(LockStoreException.class)
                    .until(() -> {
                        Optional<Grant> granted = provider.tryAcquire(new AcquireRequest(after, afterOwner,
                                Duration.ofSeconds(30), false));
                        granted.ifPresent(regained::set);
                        return granted.isPresent();
                    });
            System.out.printf("frozen server: a lock granted again %d ms after the resume%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumedAt));
            assertTrue(provider.inspect(after).isPresent(), "the new holder is not seen");
            assertTrue(provider.release(regained.get()), "the lock taken after the resume was not released");
        } finally {
            watchdog.shutdownNow();
        }
    }
}
