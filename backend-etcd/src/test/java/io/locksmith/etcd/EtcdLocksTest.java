package io.locksmith.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.locksmith.HolderIdentity;
import io.locksmith.LeaseLostEvent;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.FaultInjector;
import io.locksmith.tck.server.FreePorts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The etcd backend against one real etcd member: the recipe, fencing, order, loss and configuration. */
class EtcdLocksTest {

    private static EtcdCluster etcd;
    private static Client direct;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdCluster.start(1);
        direct = etcd.client();
    }

    @AfterAll
    static void stopEtcd() {
        if (direct != null) {
            direct.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    private static LockClient open(String parameters) {
        return LockClient.open(etcd.uri(parameters));
    }

    private static String unique(TestInfo test) {
        return test.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime();
    }

    @Test
    void aUserInTheUriWhenEtcdHasAuthenticationOffFailsTheOpenSayingSo() {
        LockStoreException e = assertThrows(LockStoreException.class,
                () -> LockClient.open(etcd.uri("timeout=2s").replace("etcd://", "etcd://alice:S3cret-pw@")));
        assertTrue(e.getMessage().contains("has authentication off but the URI names user 'alice'"), e.getMessage());
        assertFalse(e.getMessage().contains("S3cret-pw"), e.getMessage());
    }

    @Test
    void holderGetsCreateRevisionAsTokenAndInspectShowsIt(TestInfo test) {
        String name = unique(test);
        try (LockClient client = open("lease=2s")) {
            assertTrue(client.capabilities().containsAll(List.of(Capability.FENCING, Capability.FAIR,
                    Capability.SESSION_BOUND, Capability.RELEASE_NOTIFICATION, Capability.BATCH_RENEW)));
            long first;
            try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
                first = lease.fencingToken();
                LockInfo info = client.inspect(name).orElseThrow();
                assertEquals(first, info.fencingToken());
                assertEquals(client.clientId(), info.holder().clientId());
                assertEquals(Thread.currentThread().getName(), info.holder().thread());
                KeyValue key = keysOf(name).get(0);
                assertEquals(first, key.getCreateRevision());
                assertTrue(key.getLease() != 0, "the key must be attached to a lease");
            }
            assertEquals(Optional.empty(), client.inspect(name));
            try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(lease.fencingToken() > first);
            }
        }
    }

    @Test
    void listShowsEachHoldersRemainingLeaseAsEtcdCountsIt(TestInfo test) {
        String prefix = unique(test) + ":";
        try (LockClient one = open("lease=10s"); LockClient two = open("lease=20s");
             Lease first = one.lock(prefix + "a").acquire(Duration.ofSeconds(5));
             Lease second = one.lock(prefix + "b").acquire(Duration.ofSeconds(5));
             Lease third = two.lock(prefix + "c").acquire(Duration.ofSeconds(5))) {
            List<LockInfo> held = one.list(prefix, Duration.ofSeconds(5));
            assertEquals(List.of(prefix + "a", prefix + "b", prefix + "c"), held.stream().map(LockInfo::lockName).toList());
            for (LockInfo info : held) {
                Duration lease = info.lockName().endsWith("c") ? Duration.ofSeconds(20) : Duration.ofSeconds(10);
                Duration remaining = info.timeToLive().orElseThrow(() -> new AssertionError("no remaining lease: "
                        + info));
                // etcd counts whole seconds from the last keep-alive: positive, never more than the lease.
                assertTrue(!remaining.isNegative() && !remaining.isZero() && remaining.compareTo(lease) <= 0, info.toString());
            }
            assertEquals(first.fencingToken(), held.get(0).fencingToken());
            assertEquals(second.fencingToken(), held.get(1).fencingToken());
            assertEquals(third.fencingToken(), held.get(2).fencingToken());
        }
    }

    @Test
    void aNonWaitingAttemptLeavesNoKeyBehind(TestInfo test) {
        String name = unique(test);
        try (LockClient a = open("lease=2s"); LockClient b = open("lease=2s")) {
            try (Lease held = a.lock(name).acquire(Duration.ofSeconds(5))) {
                assertEquals(Optional.empty(), b.lock(name).tryAcquire());
                assertEquals(1, keysOf(name).size());
                assertTrue(held.isHeld());
            }
        }
    }

    @Test
    void waitersAreServedInRevisionOrder(TestInfo test) throws Exception {
        String name = unique(test);
        List<LockClient> clients = new ArrayList<>();
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        List<String> served = new CopyOnWriteArrayList<>();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        try {
            LockClient holder = open("lease=2s");
            clients.add(holder);
            Lease held = holder.lock(name).acquire(Duration.ofSeconds(5));
            for (int i = 0; i < 4; i++) {
                // Polling only once a minute: the waiters must be woken by the watches on their predecessors.
                LockClient waiter = LockClient.builder().uri(etcd.uri("lease=2s"))
                        .maxPollInterval(Duration.ofMinutes(1)).build();
                clients.add(waiter);
                String label = "w" + i;
                waiters.add(CompletableFuture.runAsync(() -> {
                    try (Lease lease = waiter.lock(name).acquire(Duration.ofSeconds(30))) {
                        served.add(label);
                        tokens.add(lease.fencingToken());
                    }
                }));
                int queued = i + 1;
                // Wait until this waiter's key is in the queue before the next one arrives.
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> holder.inspect(name).map(info -> info.waiters().size()).orElse(0) == queued);
            }
            long heldToken = held.fencingToken();
            held.close();
            CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertEquals(List.of("w0", "w1", "w2", "w3"), served);
            long previous = heldToken;
            for (long token : tokens) {
                assertTrue(token > previous, "tokens must increase in serving order: " + tokens);
                previous = token;
            }
        } finally {
            clients.forEach(LockClient::close);
        }
    }

    @Test
    void aRevokedLeaseIsReportedAndTheNextHolderGetsAHigherToken(TestInfo test) throws Exception {
        String name = unique(test);
        try (LockClient a = open("lease=3s"); LockClient b = open("lease=3s")) {
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            AtomicReference<LeaseLostEvent> siblingLost = new AtomicReference<>();
            Lease held = a.lock(name).acquire(Duration.ofSeconds(5));
            held.onLost(lost::set);
            // Another lock of the same client and TTL shares the lease: its loss must be reported too.
            Lease sibling = a.lock(name + "-sibling").acquire(Duration.ofSeconds(5));
            sibling.onLost(siblingLost::set);
            long leaseId = keysOf(name).get(0).getLease();
            assertEquals(leaseId, keysOf(name + "-sibling").get(0).getLease(), "one lease per client and TTL");
            direct.getLeaseClient().revoke(leaseId).get(5, TimeUnit.SECONDS);

            try (Lease next = b.lock(name).acquire(Duration.ofSeconds(10))) {
                assertTrue(next.fencingToken() > held.fencingToken());
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() != null && siblingLost.get() != null);
            assertFalse(held.isHeld());
            assertFalse(sibling.isHeld());
            held.close();
            sibling.close();
            // The client that lost its lease gets a fresh one for its next lock.
            try (Lease again = a.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(again.isHeld());
            }
        }
    }

    @Test
    void aKeyDeletedBehindTheHoldersBackIsFoundAtTheNextRenewal(TestInfo test) throws Exception {
        String name = unique(test);
        try (LockClient a = open("lease=2s")) {
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            Lease held = a.lock(name).acquire(Duration.ofSeconds(5));
            held.onLost(lost::set);
            direct.getKVClient().delete(keysOf(name).get(0).getKey()).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() != null);
            assertFalse(held.isHeld());
            held.close();
        }
    }

    @Test
    void aFixedLeaseEndsAtItsTtlAlthoughTheClientLeaseIsKeptAlive(TestInfo test) {
        String name = unique(test);
        try (LockClient a = open("lease=2s"); LockClient b = open("lease=2s")) {
            LockOptions fixed = LockOptions.builder().leaseTime(Duration.ofSeconds(2)).fixedLease().build();
            Lease held = a.lock(name, fixed).acquire(Duration.ofSeconds(5));
            // A renewing lock on the same client and TTL keeps the shared lease alive meanwhile.
            try (Lease other = a.lock(name + "-other").acquire(Duration.ofSeconds(5))) {
                try (Lease next = b.lock(name).acquire(Duration.ofSeconds(10))) {
                    assertTrue(next.fencingToken() > held.fencingToken());
                    assertTrue(other.isHeld());
                }
            }
            held.close();
        }
    }

    @Test
    void aReleaseAtTheTtlThatFailsIsSentAgainUntilEtcdAnswersIt(TestInfo test) {
        String name = unique(test);
        FaultInjector faults = new FaultInjector();
        try (LockClient a = ProviderClientBuilder.create().uri(etcd.uri("lease=2s"))
                .factory(faults.wrap(new EtcdLockProviderFactory())).build();
             LockClient b = open("lease=2s")) {
            LockOptions fixed = LockOptions.builder().leaseTime(Duration.ofSeconds(2)).fixedLease().build();
            Lease held = a.lock(name, fixed).acquire(Duration.ofSeconds(5));
            // The client keeps its shared lease alive all along, so etcd keeps the key until a release gets through:
            // the first two at the end of the TTL fail as if etcd were unreachable.
            faults.failNext(FaultInjector.Call.RELEASE, FaultInjector.Moment.BEFORE_EFFECT)
                    .failNext(FaultInjector.Call.RELEASE, FaultInjector.Moment.BEFORE_EFFECT);
            try (Lease next = b.lock(name).acquire(Duration.ofSeconds(15))) {
                assertEquals(2, faults.injected(), "both failing releases reached the provider");
                assertFalse(held.isHeld());
                assertTrue(next.fencingToken() > held.fencingToken());
            }
            held.close();
        }
    }

    @Test
    void anAttemptThatEndsAfterItsWaitWasCancelledLeavesNoQueueKey(TestInfo test) {
        String name = unique(test);
        FaultInjector faults = new FaultInjector();
        try (LockClient holder = open("lease=2s");
             LockClient waiter = ProviderClientBuilder.create().uri(etcd.uri("lease=2s"))
                     .factory(faults.wrap(new EtcdLockProviderFactory())).build();
             LockClient next = open("lease=2s")) {
            Lease held = holder.lock(name).acquire(Duration.ofSeconds(5));
            // The wait ends while its attempt is still on its way to etcd; the client cleans up (ambiguous release,
            // cancel), and only then does the attempt put its key, which the client's shared lease would keep.
            faults.holdWaitingAttempts();
            assertTrue(waiter.lock(name).tryAcquire(Duration.ofMillis(300)).isEmpty());
            assertEquals(1, faults.waitingAttemptsArrived(), "the attempt was held until the wait ended");
            faults.resumeWaitingAttempts();
            await().atMost(Duration.ofSeconds(10)).until(faults::noWaitingAttemptInFlight);
            await("the late attempt's key is deleted once the attempt has ended").atMost(Duration.ofSeconds(10))
                    .until(() -> keysOf(name).size() == 1);
            held.close();
            Optional<Lease> freed = next.lock(name).tryAcquire();
            assertTrue(freed.isPresent(), "the lock did not come free after its release");
            freed.get().close();
        }
    }

    @Test
    void aHolderThatStopsIsFreedWithinItsTtl(TestInfo test) throws Exception {
        String name = unique(test);
        EtcdLockProvider crashing = (EtcdLockProvider) new EtcdLockProviderFactory().create(
                LockUri.parse(etcd.uri("")), new ProviderContext("crashing", (grant, reason, cause) -> { }));
        Owner owner = new Owner("crashing:1", new HolderIdentity("crashing", "test", "main", 1, null));
        Grant grant = crashing.tryAcquire(new AcquireRequest(name, owner, Duration.ofSeconds(2), false)).orElseThrow();
        long leaseId = ((KeyHandle) grant.handle()).leaseId();
        // What a killed process leaves behind: a key on a lease nobody keeps alive or revokes.
        crashing.closeWithoutRevoking();
        try (LockClient b = open("lease=2s"); Lease next = b.lock(name).acquire(Duration.ofSeconds(10))) {
            assertTrue(next.fencingToken() > grant.fencingToken());
            assertTrue(direct.getLeaseClient().timeToLive(leaseId, LeaseOption.DEFAULT).get(5, TimeUnit.SECONDS)
                    .getTTL() <= 0, "the crashed holder's lease must have expired");
        }
    }

    @Test
    void aHolderCutOffFromEtcdIsToldBeforeItsLeaseCouldHaveRunOut(TestInfo test) {
        String name = unique(test);
        try (LockClient a = open("lease=2s&timeout=1s")) {
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            Lease held = a.lock(name).acquire(Duration.ofSeconds(5));
            held.onLost(lost::set);
            etcd.members().get(0).pause();
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> lost.get() != null);
                assertFalse(held.isHeld());
            } finally {
                etcd.members().get(0).resume();
            }
            held.close();
            try (Lease again = a.lock(name).acquire(Duration.ofSeconds(10))) {
                assertTrue(again.fencingToken() > held.fencingToken());
            }
        }
    }

    @Test
    void ttlsAreRoundedUpToWholeSecondsAndTooShortOnesRefused(TestInfo test) {
        try (LockClient client = open("")) {
            String name = unique(test);
            IllegalArgumentException tooShort = assertThrows(IllegalArgumentException.class, () ->
                    client.lock(name, LockOptions.builder().leaseTime(Duration.ofMillis(500)).build()));
            assertTrue(tooShort.getMessage().contains("whole seconds"), tooShort.getMessage());
            try (Lease lease = client.lock(name, LockOptions.builder().leaseTime(Duration.ofMillis(1500)).build())
                    .acquire(Duration.ofSeconds(5))) {
                long leaseId = keysOf(name).get(0).getLease();
                long granted = direct.getLeaseClient().timeToLive(leaseId, LeaseOption.DEFAULT)
                        .get(5, TimeUnit.SECONDS).getGrantedTTL();
                assertEquals(2, granted);
                assertTrue(lease.isHeld());
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void badUrisAreRejectedNamingTheProblem() {
        LockConfigurationException path = assertThrows(LockConfigurationException.class,
                () -> LockClient.open(etcd.uri("").replace("?", "") + "/locks"));
        assertTrue(path.getMessage().contains("prefix"), path.getMessage());
        LockConfigurationException unknown = assertThrows(LockConfigurationException.class,
                () -> LockClient.open(etcd.uri("prefx=/a/")));
        assertTrue(unknown.getMessage().contains("prefx"), unknown.getMessage());
        LockConfigurationException timeout = assertThrows(LockConfigurationException.class,
                () -> LockClient.open(etcd.uri("timeout=soon")));
        assertTrue(timeout.getMessage().contains("timeout"), timeout.getMessage());
        int closedPort = FreePorts.next();
        LockStoreException unreachable = assertThrows(LockStoreException.class,
                () -> LockClient.open("etcd://127.0.0.1:" + closedPort + "?timeout=1s"));
        assertTrue(unreachable.getMessage().contains("127.0.0.1:" + closedPort), unreachable.getMessage());
    }

    @Test
    void prefixKeepsLocksApart(TestInfo test) {
        String name = unique(test);
        try (LockClient a = open("prefix=/team-a/&lease=2s"); LockClient b = open("prefix=/team-b&lease=2s")) {
            try (Lease first = a.lock(name).acquire(Duration.ofSeconds(5));
                 Lease second = b.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(first.isHeld() && second.isHeld());
                assertTrue(a.describe().contains("prefix=/team-a/"), a.describe());
            }
        }
        // A name with a slash is one lock, not a directory of another.
        try (LockClient a = open("lease=2s"); LockClient b = open("lease=2s")) {
            try (Lease parent = a.lock(name).acquire(Duration.ofSeconds(5));
                 Lease child = b.lock(name + "/child").acquire(Duration.ofSeconds(5))) {
                assertTrue(parent.isHeld() && child.isHeld());
            }
        }
    }

    /**
     * etcd keeps every key ever written in its index until the cluster is compacted, and each acquire's read of the
     * queue head walks them: a key per holding made a busy name slower with every holding (20,000 holdings since the
     * last compaction: about 8 ms more per acquire). Holders and waiters use their client's slots instead.
     */
    @Test
    void aBusyNameReusesItsKeysInsteadOfWritingOnePerHolding(TestInfo test) throws Exception {
        String name = unique(test);
        long before = direct.getKVClient().get(bytes("/")).get(5, TimeUnit.SECONDS).getHeader().getRevision();
        int threads = 3;
        int rounds = 20;
        try (LockClient a = open("lease=5s"); LockClient b = open("lease=5s")) {
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (LockClient client : List.of(a, b)) {
                for (int t = 0; t < threads; t++) {
                    workers.add(CompletableFuture.runAsync(() -> {
                        for (int i = 0; i < rounds; i++) {
                            client.lock(name).acquire(Duration.ofSeconds(20)).close();
                        }
                    }));
                }
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        }
        long after = direct.getKVClient().get(bytes("/")).get(5, TimeUnit.SECONDS).getHeader().getRevision();
        java.util.Set<String> written = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicInteger puts = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicLong seen = new java.util.concurrent.atomic.AtomicLong();
        try (io.etcd.jetcd.Watch.Watcher history = direct.getWatchClient().watch(
                new EtcdKeys(EtcdSettings.DEFAULT_PREFIX).directory(name),
                io.etcd.jetcd.options.WatchOption.builder().isPrefix(true).withRevision(before + 1).build(),
                response -> {
                    response.getEvents().forEach(event -> {
                        if (event.getEventType() == io.etcd.jetcd.watch.WatchEvent.EventType.PUT) {
                            puts.incrementAndGet();
                            written.add(event.getKeyValue().getKey().toString());
                        }
                    });
                    seen.set(response.getHeader().getRevision());
                })) {
            await("the history of the lock's keys").atMost(Duration.ofSeconds(10)).until(() -> seen.get() >= after);
        }
        assertTrue(puts.get() >= 2 * threads * rounds, puts.get() + " puts for " + 2 * threads * rounds + " holdings");
        assertTrue(written.size() <= 2 * threads, written.size() + " distinct keys written for " + 2 * threads * rounds
                + " holdings of two clients with " + threads + " threads each (at most one per thread was expected), e.g. "
                + written.stream().limit(4).toList());
    }

    /**
     * An attempt that reaches etcd after its owner's clean-up leaves a key in the owner's slot. The slot's next owner
     * takes it over, with its own identity, instead of queueing behind it.
     */
    @Test
    void aKeyLeftInASlotByALateAttemptIsTakenOverByTheSlotsNextOwner(TestInfo test) throws Exception {
        String name = unique(test);
        try (EtcdLockProvider provider = (EtcdLockProvider) new EtcdLockProviderFactory().create(
                LockUri.parse(etcd.uri("")), new ProviderContext("slots", (grant, reason, cause) -> { }))) {
            Owner first = new Owner("slots:1", new HolderIdentity("slots", "test", "first", 1, null));
            Grant firstGrant = provider.tryAcquire(new AcquireRequest(name, first, Duration.ofSeconds(5), true))
                    .orElseThrow();
            KeyValue left = keysOf(name).get(0);
            assertTrue(provider.release(firstGrant));
            assertEquals(0, provider.claimedKeySlots(), "a released holding still has its slot");
            // What the late attempt does: put the first owner's key again, on the client's lease.
            direct.getKVClient().put(left.getKey(), left.getValue(), io.etcd.jetcd.options.PutOption.builder()
                    .withLeaseId(left.getLease()).build()).get(5, TimeUnit.SECONDS);

            Owner second = new Owner("slots:2", new HolderIdentity("slots", "test", "second", 2, null));
            Grant secondGrant = provider.tryAcquire(new AcquireRequest(name, second, Duration.ofSeconds(5), false))
                    .orElseThrow(() -> new AssertionError("the slot's next owner queued behind the left-over key"));
            assertEquals(1, keysOf(name).size());
            assertEquals("second", provider.inspect(name).orElseThrow().holder().thread(),
                    "the taken-over key still names the earlier owner");
            assertTrue(provider.release(secondGrant));
            assertEquals(List.of(), keysOf(name));

            // A wait that ends without the lock gives its slot back too.
            Owner holder = new Owner("slots:3", new HolderIdentity("slots", "test", "holder", 3, null));
            Owner waiter = new Owner("slots:4", new HolderIdentity("slots", "test", "waiter", 4, null));
            Grant held = provider.tryAcquire(new AcquireRequest(name, holder, Duration.ofSeconds(5), false)).orElseThrow();
            assertTrue(provider.tryAcquire(new AcquireRequest(name, waiter, Duration.ofSeconds(5), true)).isEmpty());
            assertEquals(2, provider.claimedKeySlots());
            provider.cancel(name, waiter);
            assertTrue(provider.release(held));
            assertEquals(0, provider.claimedKeySlots(), "a cancelled wait or a release kept its slot");
            assertEquals(List.of(), keysOf(name));
        }
    }

    /**
     * Under load an attempt may claim its slot and then wait for a core while its caller's bound ends: the shared
     * client's clean-up (ambiguous release) deletes the key before the attempt's put reaches etcd, and its late
     * cancel comes only after the attempt ended. The slot must stay the owner's until that cancel, or the cancel finds
     * no slot and the late key stays, kept alive by the client's shared lease: a queue entry nobody owns, which
     * becomes a holder nobody releases (TCK R1.5 found it so on a loaded CI machine).
     */
    @Test
    void aKeyPutByAnAttemptAfterItsOwnersCleanUpIsDeletedByTheLateCancel(TestInfo test) throws Exception {
        String name = unique(test);
        try (EtcdLockProvider holderSide = provider("holder"); EtcdLockProvider waiterSide = provider("waiter")) {
            Owner holder = new Owner("late-put:holder", new HolderIdentity("holder", "test", "holder", 1, null));
            Owner waiter = new Owner("late-put:waiter", new HolderIdentity("waiter", "test", "waiter", 2, null));
            Grant held = holderSide.tryAcquire(new AcquireRequest(name, holder, Duration.ofSeconds(5), false))
                    .orElseThrow();
            java.util.concurrent.CountDownLatch arrived = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch resume = new java.util.concurrent.CountDownLatch(1);
            waiterSide.beforeAcquireTransaction(() -> {
                arrived.countDown();
                try {
                    resume.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            CompletableFuture<Optional<Grant>> attempt = CompletableFuture.supplyAsync(() -> waiterSide.tryAcquire(
                    new AcquireRequest(name, waiter, Duration.ofSeconds(5), true)));
            assertTrue(arrived.await(10, TimeUnit.SECONDS), "the attempt did not reach its transaction");
            // The caller's bound ended: the shared client releases the attempt as ambiguous while it is in flight.
            waiterSide.releaseAmbiguous(name, waiter);
            waiterSide.beforeAcquireTransaction(() -> { });
            resume.countDown();
            assertTrue(attempt.get(10, TimeUnit.SECONDS).isEmpty(), "the waiter was granted a held lock");
            assertEquals(2, keysOf(name).size(), "the late attempt did not put its key after the clean-up");
            // The attempt ended after its caller stopped waiting: the shared client cancels its owner's wait.
            waiterSide.cancel(name, waiter);
            assertEquals(1, keysOf(name).size(), "the late attempt's key stayed after the late cancel");
            assertEquals(0, waiterSide.claimedKeySlots(), "the cancelled waiter kept its slot");
            assertTrue(holderSide.release(held));
            assertEquals(List.of(), keysOf(name));
        }
    }

    /**
     * Slot keys are written again by the slot's next owner, so the queue watch may report the deletion of an earlier
     * life of a key after the waiter read the key's current life as ahead of it. That report must not clear the key:
     * the waiter would take a lock that is held.
     */
    @Test
    void aLateReportOfAnEarlierLifeOfAKeyAheadDoesNotGrantTheWaiter(TestInfo test) throws Exception {
        String name = unique(test);
        try (EtcdLockProvider holderSide = provider("holder"); EtcdLockProvider waiterSide = provider("waiter")) {
            Owner holder = new Owner("late:holder", new HolderIdentity("holder", "test", "holder", 1, null));
            Owner waiter = new Owner("late:waiter", new HolderIdentity("waiter", "test", "waiter", 2, null));
            Grant held = holderSide.tryAcquire(new AcquireRequest(name, holder, Duration.ofSeconds(5), false))
                    .orElseThrow();
            KeyHandle heldKey = (KeyHandle) held.handle();
            try (AutoCloseable subscription = waiterSide.subscribe(name, () -> { })) {
                // The first attempt puts the waiter's key and reads the holder's key as ahead of it.
                assertTrue(waiterSide.tryAcquire(new AcquireRequest(name, waiter, Duration.ofSeconds(5), true))
                        .isEmpty());
                waiterSide.queueWatches().reportDeleted(name, heldKey.key(), heldKey.createRevision() - 1);
                assertTrue(waiterSide.tryAcquire(new AcquireRequest(name, waiter, Duration.ofSeconds(5), true))
                        .isEmpty(), "the waiter was granted a held lock after the report of an earlier deletion");

                assertTrue(holderSide.release(held));
                AtomicReference<Grant> granted = new AtomicReference<>();
                await("the waiter's grant after the real release").atMost(Duration.ofSeconds(10)).until(() -> {
                    waiterSide.tryAcquire(new AcquireRequest(name, waiter, Duration.ofSeconds(5), true))
                            .ifPresent(granted::set);
                    return granted.get() != null;
                });
                assertTrue(waiterSide.release(granted.get()));
            }
        }
    }

    /**
     * etcd commits every transaction that holds a put through Raft (a WAL write and fsync), even when its compare fails
     * and it only reads: a waiter's later attempts in one wait, with the key it already wrote, must only read.
     */
    @Test
    void aWaitersLaterAttemptsReadWithoutARaftCommit(TestInfo test) throws Exception {
        String name = unique(test);
        try (EtcdLockProvider holderSide = provider("holder"); EtcdLockProvider waiterSide = provider("waiter")) {
            Owner holder = new Owner("reads:holder", new HolderIdentity("holder", "test", "holder", 1, null));
            Owner waiter = new Owner("reads:waiter", new HolderIdentity("waiter", "test", "waiter", 2, null));
            Grant held = holderSide.tryAcquire(new AcquireRequest(name, holder, Duration.ofSeconds(5), false))
                    .orElseThrow();
            assertTrue(waiterSide.tryAcquire(new AcquireRequest(name, waiter, Duration.ofSeconds(5), true)).isEmpty());
            int attempts = 5;
            long before = proposalsCommitted();
            for (int i = 0; i < attempts; i++) {
                assertTrue(waiterSide.tryAcquire(new AcquireRequest(name, waiter, Duration.ofSeconds(5), true))
                        .isEmpty());
            }
            long proposals = proposalsCommitted() - before;
            assertTrue(proposals < attempts, proposals + " Raft commits for " + attempts + " attempts of a waiter"
                    + " that had its key: each repeated the put-if-absent transaction");
            assertEquals(2, keysOf(name).size());

            assertTrue(holderSide.release(held));
            AtomicReference<Grant> granted = new AtomicReference<>();
            await("the waiter's grant from a read").atMost(Duration.ofSeconds(10)).until(() -> {
                waiterSide.tryAcquire(new AcquireRequest(name, waiter, Duration.ofSeconds(5), true))
                        .ifPresent(granted::set);
                return granted.get() != null;
            });
            assertTrue(((KeyHandle) granted.get().handle()).createRevision() > ((KeyHandle) held.handle())
                    .createRevision(), "the waiter's token is not above the holder's");
            assertTrue(waiterSide.release(granted.get()));
            assertEquals(List.of(), keysOf(name));
        }
    }

    /** etcd's count of Raft proposals committed ({@code /metrics}). */
    private static long proposalsCommitted() throws Exception {
        String metrics;
        try (java.io.InputStream in = java.net.URI.create("http://127.0.0.1:" + etcd.members().get(0).port()
                + "/metrics").toURL().openStream()) {
            metrics = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        for (String line : metrics.split("\n")) {
            if (line.startsWith("etcd_server_proposals_committed_total ")) {
                return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("etcd's /metrics has no etcd_server_proposals_committed_total");
    }

    private static EtcdLockProvider provider(String clientName) {
        return (EtcdLockProvider) new EtcdLockProviderFactory().create(LockUri.parse(etcd.uri("")),
                new ProviderContext(clientName, (grant, reason, cause) -> { }));
    }

    private static io.etcd.jetcd.ByteSequence bytes(String text) {
        return EtcdKeys.bytes(text);
    }

    private static List<KeyValue> keysOf(String name) {
        try {
            return direct.getKVClient().get(new EtcdKeys(EtcdSettings.DEFAULT_PREFIX).directory(name),
                    GetOption.builder().isPrefix(true).withSortField(GetOption.SortTarget.CREATE).build())
                    .get(5, TimeUnit.SECONDS).getKvs();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
