package io.locksmith.zookeeper;

import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockInfo;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.LossReason;
import io.locksmith.Capability;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.tck.FaultInjector;
import io.locksmith.tck.server.FreePorts;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ZooKeeper-specific behaviour, against a real in-JVM server. */
class ZooKeeperLockTest {

    private static final Duration PATIENCE = Duration.ofSeconds(15);

    private static EmbeddedZooKeeper server;
    private static ZooKeeperAdmin admin;

    @BeforeAll
    static void startServer() throws InterruptedException {
        server = EmbeddedZooKeeper.start();
        admin = new ZooKeeperAdmin(server.connectString(), ZooKeeperSettings.DEFAULT_BASE_PATH);
    }

    @AfterAll
    static void stopServer() {
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    private static LockClient open(String parameters) {
        return LockClient.open(server.uri() + parameters);
    }

    @Test
    void batchRenewalSpansSeveralMultiRequests() {
        // More held locks than one multi read carries: each chunk's results must map back to its own locks.
        int count = ZooKeeperLockProvider.MAX_READS_PER_MULTI * 2 + 100;
        LockOptions renewing = LockOptions.builder().leaseTime(Duration.ofMillis(1500)).build();
        String prefix = "batch-" + java.util.UUID.randomUUID() + ":";
        try (LockClient client = open("")) {
            java.util.List<Lease> leases = new java.util.ArrayList<>();
            for (int i = 0; i < count; i++) {
                leases.add(client.lock(prefix + i, renewing).acquire(Duration.ofSeconds(5)));
            }
            long pastTwoLeases = System.nanoTime() + Duration.ofMillis(3500).toNanos();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                    .until(() -> System.nanoTime() > pastTwoLeases);
            assertEquals(count, leases.stream().filter(Lease::isHeld).count(), "leases lost by batch renewal");
            leases.forEach(Lease::close);
        }
    }

    @Test
    void declaresWhatItDoes() {
        try (LockClient client = open("")) {
            assertEquals(EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION, Capability.FAIR,
                    Capability.SESSION_BOUND, Capability.INSPECT_WAITERS, Capability.BATCH_RENEW),
                    EnumSet.copyOf(client.capabilities()));
            assertEquals("zookeeper://" + server.connectString() + "/locksmith", client.describe());
        }
    }

    @Test
    void handsOverWithAHigherTokenAndLeavesNoNodeBehind() throws Exception {
        String name = unique("handover");
        try (LockClient a = open(""); LockClient b = open("")) {
            Lease first = a.lock(name).acquire(Duration.ofSeconds(5));
            assertTrue(b.lock(name).tryAcquire().isEmpty(), "the lock is held");
            assertEquals(1, admin.queue(name).size(), "a one-shot attempt that failed deletes its node");
            CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(() -> b.lock(name).acquire(PATIENCE));
            await().atMost(PATIENCE).until(() -> admin.queue(name).size() == 2);
            first.close();
            Lease second = waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertTrue(second.fencingToken() > first.fencingToken(),
                    second.fencingToken() + " must be above " + first.fencingToken());
            assertEquals(admin.holderStat(name).getCzxid(), second.fencingToken(), "the token is the node's czxid");
            second.close();
        }
        assertTrue(admin.queue(name).isEmpty());
        await("the empty container is deleted by the server").atMost(PATIENCE)
                .until(() -> !admin.containerExists(name));
    }

    @Test
    void waitersAcquireInArrivalOrder() throws Exception {
        String name = unique("fifo");
        int waiters = 4;
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        List<LockClient> waiterClients = new ArrayList<>();
        try (LockClient holderClient = open("")) {
            Lease held = holderClient.lock(name).acquire(Duration.ofSeconds(5));
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                int index = i;
                // A client per waiter, so that local wake-ups cannot explain the order; the store's queue must. (The
                // waiters of one client coalesce: only the first of them has a place in the store's queue.)
                LockClient client = open("");
                waiterClients.add(client);
                done.add(CompletableFuture.runAsync(() -> {
                    try (Lease lease = client.lock(name).acquire(PATIENCE)) {
                        order.add(index);
                        tokens.add(lease.fencingToken());
                    }
                }));
                await().atMost(PATIENCE).until(() -> admin.queue(name).size() == index + 2);
            }
            LockInfo info = holderClient.inspect(name).orElseThrow();
            assertEquals(waiters, info.waiters().size(), "inspect lists the queue");
            held.close();
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        } finally {
            waiterClients.forEach(LockClient::close);
        }
        assertEquals(List.of(0, 1, 2, 3), order);
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1), "tokens increase: " + tokens);
        }
    }

    @Test
    void inspectShowsTheHolderTokenAndWaitersInOrder() throws Exception {
        String name = unique("inspect");
        // One client per waiter: the waiters of one client coalesce, and only the first has a place in the queue.
        try (LockClient client = open(""); LockClient first = open(""); LockClient second = open("")) {
            assertTrue(client.inspect(name).isEmpty());
            Lease lease = client.lock(name).acquire(Duration.ofSeconds(5));
            List<CompletableFuture<Optional<Lease>>> queued = new ArrayList<>();
            List<LockClient> waiterClients = List.of(first, second);
            for (int i = 0; i < 2; i++) {
                int index = i;
                queued.add(CompletableFuture.supplyAsync(() -> {
                    Thread.currentThread().setName("waiter-" + index);
                    return waiterClients.get(index).lock(name).tryAcquire(PATIENCE);
                }));
                await().atMost(PATIENCE).until(() -> admin.queue(name).size() == index + 2);
            }
            LockInfo info = client.inspect(name).orElseThrow();
            assertEquals(lease.fencingToken(), info.fencingToken());
            assertEquals(client.clientId(), info.holder().clientId());
            assertEquals(Thread.currentThread().getName(), info.holder().thread());
            assertEquals(List.of("waiter-0", "waiter-1"), info.waiters().stream().map(h -> h.thread()).toList());
            assertTrue(info.timeToLive().isEmpty(), "a session-bound lock has no store-side TTL to show");
            lease.close();
            for (CompletableFuture<Optional<Lease>> waiter : queued) {
                waiter.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).orElseThrow().close();
            }
        }
    }

    @Test
    void sessionExpiredBehindTheClientsBackIsReportedAndTheNextHolderGetsAHigherToken() throws Exception {
        String name = unique("expiry");
        try (LockClient a = open("?sessionTimeout=4s"); LockClient b = open("")) {
            Lease lease = a.lock(name).acquire(Duration.ofSeconds(5));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> b.lock(name).acquire(PATIENCE));
            await().atMost(PATIENCE).until(() -> admin.queue(name).size() == 2);

            Stat holder = admin.holderStat(name);
            assertTrue(server.expireSession(holder.getEphemeralOwner()));

            await().atMost(PATIENCE).until(() -> lost.get() != null);
            assertEquals(LossReason.SESSION_LOST, lost.get().reason());
            assertFalse(lease.isHeld());
            Lease successor = next.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertTrue(successor.fencingToken() > lease.fencingToken());
            lease.close();
            successor.close();

            // Curator opens a new session: the client keeps working, and its old node is not taken for held.
            try (Lease again = a.lock(name).acquire(PATIENCE)) {
                assertTrue(again.fencingToken() > successor.fencingToken());
                assertTrue(again.isHeld());
            }
        }
    }

    @Test
    void aNodeDeletedBehindTheHoldersBackIsReported() throws Exception {
        String name = unique("deleted");
        try (LockClient client = open("")) {
            Lease lease = client.lock(name).acquire(Duration.ofSeconds(5));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            assertTrue(admin.deleteHolderNode(name));
            await().atMost(PATIENCE).until(() -> lost.get() != null);
            assertFalse(lease.isHeld());
            lease.close();
            try (Lease again = client.lock(name).acquire(PATIENCE)) {
                assertTrue(again.fencingToken() > lease.fencingToken());
            }
        }
    }

    @Test
    void aFixedLeaseFreesTheNodeWhenItsTtlRunsOutThoughTheSessionLives() throws Exception {
        String name = unique("fixed");
        try (LockClient holder = open(""); LockClient other = open("")) {
            Lease lease = holder.lock(name, LockOptions.builder().leaseTime(Duration.ofMillis(400)).fixedLease().build())
                    .acquire(Duration.ofSeconds(5));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            Lease next = other.lock(name).acquire(PATIENCE);
            assertEquals(LossReason.EXPIRED, lost.get().reason(), "the holder was told before the next one got it");
            assertTrue(next.fencingToken() > lease.fencingToken());
            next.close();
            lease.close();
        }
    }

    @Test
    void aReleaseAtTheTtlThatFailsIsSentAgainWhileTheSessionLives() throws Exception {
        String name = unique("release-retried");
        FaultInjector faults = new FaultInjector();
        // The first two releases fail as if the server were unreachable (before the acquire: nothing else releases).
        faults.failNext(FaultInjector.Call.RELEASE, FaultInjector.Moment.BEFORE_EFFECT)
                .failNext(FaultInjector.Call.RELEASE, FaultInjector.Moment.BEFORE_EFFECT);
        try (LockClient holder = ProviderClientBuilder.create().uri(server.uri())
                .factory(faults.wrap(new ZooKeeperLockProviderFactory())).build();
             LockClient other = open("")) {
            Lease lease = holder.lock(name, LockOptions.builder().leaseTime(Duration.ofSeconds(1)).fixedLease().build())
                    .acquire(Duration.ofSeconds(5));
            // The session lives on, and its ephemeral node with it, until a release gets through.
            Lease next = other.lock(name).acquire(PATIENCE);
            assertEquals(2, faults.injected(), "both failing releases reached the provider");
            assertFalse(lease.isHeld());
            assertTrue(next.fencingToken() > lease.fencingToken());
            next.close();
            lease.close();
        }
    }

    @Test
    void renewalKeepsAShortLeaseAndItsNodePastTheTtl() throws Exception {
        String name = unique("renew");
        try (LockClient client = open("")) {
            Lease lease = client.lock(name, LockOptions.builder().leaseTime(Duration.ofMillis(300)).build())
                    .acquire(Duration.ofSeconds(5));
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_000);
            await().atMost(PATIENCE).until(() -> System.nanoTime() > until);
            assertTrue(lease.isHeld());
            assertEquals(lease.fencingToken(), admin.holderStat(name).getCzxid(), "the node is still there");
            lease.close();
            assertTrue(admin.queue(name).isEmpty());
        }
    }

    @Test
    void batchRenewalKeepsManyLeasesAndLosesOnlyTheOneThatWasTakenAway() throws Exception {
        List<String> names = List.of(unique("batch"), unique("batch"), unique("batch"), unique("batch"));
        try (LockClient client = open("")) {
            LockOptions shortRenewing = LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build();
            List<Lease> leases = new ArrayList<>();
            for (String name : names) {
                leases.add(client.lock(name, shortRenewing).acquire(Duration.ofSeconds(5)));
            }
            assertTrue(admin.deleteHolderNode(names.get(0)));
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_500);
            await().atMost(PATIENCE).until(() -> System.nanoTime() > until);
            assertFalse(leases.get(0).isHeld());
            for (int i = 1; i < names.size(); i++) {
                assertTrue(leases.get(i).isHeld(), names.get(i));
                assertEquals(leases.get(i).fencingToken(), admin.holderStat(names.get(i)).getCzxid());
            }
            leases.forEach(Lease::close);
        }
    }

    @Test
    void manyThreadsOnSeveralClientsNeverOverlapAndTokensOnlyGrow() throws Exception {
        String name = unique("contention");
        int clients = 3;
        int threadsPerClient = 2;
        int rounds = 15;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger staleWrites = new AtomicInteger();
        AtomicLong register = new AtomicLong(-1);
        List<LockClient> open = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(clients * threadsPerClient);
        try {
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                LockClient client = open("");
                open.add(client);
                for (int t = 0; t < threadsPerClient; t++) {
                    workers.add(CompletableFuture.runAsync(() -> {
                        for (int i = 0; i < rounds; i++) {
                            try (Lease lease = client.lock(name).acquire(PATIENCE)) {
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                // A fenced register: a write with a token not above the last one is stale.
                                long token = lease.fencingToken();
                                if (register.getAndAccumulate(token, Math::max) >= token) {
                                    staleWrites.incrementAndGet();
                                }
                                inside.decrementAndGet();
                            }
                        }
                    }, threads));
                }
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
            open.forEach(LockClient::close);
        }
        assertEquals(0, overlaps.get(), "overlapping holders");
        assertEquals(0, staleWrites.get(), "writes with a token not above the last one");
        assertTrue(admin.queue(name).isEmpty());
    }

    @Test
    void aWaiterThatGivesUpLeavesNoNode() throws Exception {
        String name = unique("cancel");
        try (LockClient a = open(""); LockClient b = open("")) {
            try (Lease lease = a.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(b.lock(name).tryAcquire(Duration.ofMillis(300)).isEmpty());
                await().atMost(PATIENCE).until(() -> admin.queue(name).size() == 1);
                assertTrue(lease.isHeld());
            }
        }
    }

    @Test
    void anOwnersOrphanNodeAheadOfItIsDeletedNotWaitedFor() throws Exception {
        String name = unique("orphan");
        String clientId = "orphan-" + UUID.randomUUID();
        // What a create retried after a lost answer leaves: a node of the same owner, ahead of the real one.
        String orphan = admin.createOrphan(name, clientId + ":1");
        try (LockClient client = LockClient.builder().uri(server.uri()).clientId(clientId).build()) {
            try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(lease.isHeld());
                assertEquals(1, admin.queue(name).size(), "the orphan " + orphan + " was deleted");
            }
        }
    }

    @Test
    void anInterruptedWaiterLeavesNoNode() throws Exception {
        String name = unique("interrupted");
        try (LockClient a = open(""); LockClient b = open("")) {
            try (Lease lease = a.lock(name).acquire(Duration.ofSeconds(5))) {
                AtomicReference<Thread> waiterThread = new AtomicReference<>();
                CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
                    waiterThread.set(Thread.currentThread());
                    try {
                        b.lock(name).acquire(PATIENCE).close();
                        return null;
                    } catch (RuntimeException e) {
                        return e;
                    }
                });
                await().atMost(PATIENCE).until(() -> admin.queue(name).size() == 2);
                waiterThread.get().interrupt();
                assertTrue(outcome.get(PATIENCE.toSeconds(), TimeUnit.SECONDS) instanceof LockInterruptedException);
                assertEquals(1, admin.queue(name).size(), "the interrupted waiter's node is gone when acquire returns");
                assertTrue(lease.isHeld());
            }
        }
    }

    @Test
    void aLeaseClosedByAnInterruptedThreadIsStillReleased() throws Exception {
        String name = unique("close-interrupted");
        try (LockClient client = open("")) {
            Lease lease = client.lock(name).acquire(Duration.ofSeconds(5));
            Thread.currentThread().interrupt();
            try {
                lease.close();
            } finally {
                assertTrue(Thread.interrupted(), "the interrupt flag is kept");
            }
            assertTrue(admin.queue(name).isEmpty());
        }
    }

    @Test
    void namesWithSlashesDotsAndUnicodeAreDistinctLocks() throws Exception {
        List<String> names = List.of("a", "a/b", "/a", "a/", ".", "..", "a%2Fb", "ö ü~x", "tab-less name");
        try (LockClient client = open(""); LockClient other = open("")) {
            List<Lease> leases = new ArrayList<>();
            for (String name : names) {
                leases.add(client.lock(name).acquire(Duration.ofSeconds(5)));
            }
            for (String name : names) {
                assertTrue(other.lock(name).tryAcquire().isEmpty(), name);
                assertEquals(client.clientId(), other.inspect(name).orElseThrow().holder().clientId(), name);
            }
            leases.forEach(Lease::close);
        }
        assertEquals("a%2Fb", LockPaths.encodeSegment("a/b"));
        assertEquals("%2E%2E", LockPaths.encodeSegment(".."));
        for (String name : names) {
            assertEquals(name, LockPaths.decodeSegment(LockPaths.encodeSegment(name)));
        }
    }

    @Test
    @SuppressWarnings("try") // the server is stopped inside the block, on purpose
    void suspendedConnectionReportsHeldLocksLostByDefault() {
        try (EmbeddedZooKeeper own = EmbeddedZooKeeper.start();
             LockClient client = LockClient.open(own.uri() + "?connectionTimeout=1s")) {
            Lease lease = client.lock(unique("suspend")).acquire(Duration.ofSeconds(5));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            own.close();
            await().atMost(PATIENCE).until(() -> lost.get() != null);
            assertEquals(LossReason.SESSION_LOST, lost.get().reason());
            assertTrue(lost.get().detail().contains("suspended"), lost.get().detail());
            lease.close();
        }
    }

    @Test
    @SuppressWarnings("try") // the server is stopped inside the block, on purpose
    void onSuspendedWaitKeepsTheLockUntilTheSessionTimeoutThenReportsIt() {
        try (EmbeddedZooKeeper own = EmbeddedZooKeeper.start();
             LockClient client = LockClient.open(own.uri() + "?onSuspended=wait&sessionTimeout=2s&connectionTimeout=500ms")) {
            Lease lease = client.lock(unique("suspend-wait"),
                    LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build()).acquire(Duration.ofSeconds(5));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            long stoppedAt = System.nanoTime();
            own.close();
            await().atMost(PATIENCE).until(() -> lost.get() != null);
            long afterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
            assertEquals(LossReason.SESSION_LOST, lost.get().reason());
            assertTrue(afterMillis >= 1_000, "reported after " + afterMillis + " ms: it should have waited for the session");
            lease.close();
        }
    }

    @Test
    void anUnreachableEnsembleFailsFastNamingIt() {
        int port = FreePorts.next();
        LockStoreException e = assertThrows(LockStoreException.class,
                () -> LockClient.open("zookeeper://127.0.0.1:" + port + "/x?connectionTimeout=300ms"));
        assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
    }

    @Test
    void badUrisAreRejectedNamingTheProblem() {
        String base = "zookeeper://" + server.connectString();
        assertTrue(assertThrows(LockConfigurationException.class, () -> LockClient.open(base + "/x?sessionTimout=5s"))
                .getMessage().contains("sessionTimout"));
        assertTrue(assertThrows(LockConfigurationException.class, () -> LockClient.open(base + "/x?onSuspended=pray"))
                .getMessage().contains("onSuspended"));
        assertTrue(assertThrows(LockConfigurationException.class, () -> LockClient.open(base + "/x?sessionTimeout=0s"))
                .getMessage().contains("sessionTimeout"));
        assertTrue(assertThrows(LockConfigurationException.class, () -> LockClient.open(base + "/zookeeper"))
                .getMessage().contains("reserved"));
        assertTrue(assertThrows(LockConfigurationException.class, () -> LockClient.open("zookeeper:///x"))
                .getMessage().contains("no host"));
    }

    @Test
    void theBasePathComesFromTheUri() throws Exception {
        String name = unique("base");
        try (LockClient client = LockClient.open("zookeeper://" + server.connectString() + "/app/locks/");
             ZooKeeperAdmin appAdmin = new ZooKeeperAdmin(server.connectString(), "/app/locks")) {
            try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
                assertEquals(lease.fencingToken(), appAdmin.holderStat(name).getCzxid());
            }
        }
    }

    /**
     * Regression (found by the TCK's R1.5 history, which ends by checking that every name is free): a timed attempt cut
     * short by the end of its wait goes on in the background, and when it queued after the client's cancel, its node
     * stayed in the queue for the life of the session, so the lock never came free for anybody else.
     */
    @Test
    void anAttemptThatEndsAfterItsWaitWasCancelledLeavesNoQueueNode() throws Exception {
        String name = unique("late-attempt");
        FaultInjector faults = new FaultInjector();
        try (LockClient holder = open("");
             LockClient waiter = ProviderClientBuilder.create().uri(server.uri())
                     .factory(faults.wrap(new ZooKeeperLockProviderFactory())).build();
             LockClient next = open("")) {
            Lease held = holder.lock(name).acquire(Duration.ofSeconds(5));
            // The wait ends while its attempt is still on its way to the server; the client cleans up (ambiguous
            // release, cancel), and only then does the attempt queue its node.
            faults.holdWaitingAttempts();
            assertTrue(waiter.lock(name).tryAcquire(Duration.ofMillis(300)).isEmpty());
            assertEquals(1, faults.waitingAttemptsArrived(), "the attempt was held until the wait ended");
            faults.resumeWaitingAttempts();
            await().atMost(PATIENCE).until(faults::noWaitingAttemptInFlight);
            await("the late attempt's node is deleted once the attempt has ended").atMost(PATIENCE)
                    .until(() -> admin.queue(name).size() == 1);
            held.close();
            Optional<Lease> freed = next.lock(name).tryAcquire();
            assertTrue(freed.isPresent(), "the lock did not come free after its release: " + admin.queue(name));
            freed.get().close();
        }
    }
}
