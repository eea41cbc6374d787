package io.locksmith.migrate;

import io.locksmith.Capability;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.mem.MemLockProviderFactory;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.EnumSet;
import java.util.Set;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MigrationTest {

    private final String oldStore = "mem://old-" + UUID.randomUUID();
    private final String newStore = "mem://new-" + UUID.randomUUID();

    private String uri(MigrationPhase phase) {
        return "migrate:?from=" + oldStore + "&to=" + newStore + "&phase=" + phase.configName() + "&guardTtl=5s";
    }

    @Test
    void adjacentPhasesExcludeEachOtherAndTokensIncrease() throws Exception {
        String name = "stock:" + UUID.randomUUID();
        try (LockClient from = LockClient.open(uri(MigrationPhase.FROM));
             LockClient dual = LockClient.open(uri(MigrationPhase.DUAL))) {
            Contention result = contend(name, 200, from, dual);
            assertEquals(0, result.overlaps.get(), "two holders at once between phases from and dual");
            assertEquals(0, result.tokenRegressions.get(), "fencing token went backwards between from and dual");
        }
        try (LockClient dual = LockClient.open(uri(MigrationPhase.DUAL));
             LockClient to = LockClient.open(uri(MigrationPhase.TO))) {
            Contention result = contend(name, 200, dual, to);
            assertEquals(0, result.overlaps.get(), "two holders at once between phases dual and to");
            assertEquals(0, result.tokenRegressions.get(), "fencing token went backwards between dual and to");
        }
    }

    /**
     * A semaphore across a rolling step: clients in adjacent phases use the store both of their phases share (the old
     * one between from and dual, the new one between dual and to), so together they never hold more permits than the
     * semaphore has. Counted by the holders, under contention.
     */
    @Test
    void aSemaphoreAcrossAdjacentPhasesNeverHoldsMoreThanItsPermits() throws Exception {
        String name = "exports:" + UUID.randomUUID();
        int permits = 2;
        for (List<MigrationPhase> step : List.of(List.of(MigrationPhase.FROM, MigrationPhase.DUAL),
                List.of(MigrationPhase.DUAL, MigrationPhase.TO))) {
            try (LockClient first = LockClient.open(uri(step.get(0)));
                 LockClient second = LockClient.open(uri(step.get(1)))) {
                AtomicInteger inUse = new AtomicInteger();
                AtomicInteger most = new AtomicInteger();
                AtomicInteger granted = new AtomicInteger();
                List<Thread> threads = new java.util.ArrayList<>();
                for (LockClient client : List.of(first, second, first, second)) {
                    Thread thread = new Thread(() -> {
                        for (int i = 0; i < 40; i++) {
                            client.semaphore(name, permits).tryAcquire(1, java.time.Duration.ofSeconds(5))
                                    .ifPresent(lease -> {
                                        // Counted in after the grant, out before the release.
                                        most.accumulateAndGet(inUse.incrementAndGet(), Math::max);
                                        granted.incrementAndGet();
                                        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // a busy holder
                                        inUse.decrementAndGet();
                                        lease.close();
                                    });
                        }
                    });
                    thread.start();
                    threads.add(thread);
                }
                for (Thread thread : threads) {
                    thread.join(60_000);
                }
                assertTrue(most.get() <= permits, step + ": " + most.get() + " permits held at once of " + permits);
                assertTrue(granted.get() > 0, step + ": nobody got a permit");
            }
        }
    }

    /** A mem store that declares itself session-bound, as ZooKeeper and etcd do: it applies no TTL of its own. */
    private static LockProvider sessionBound(LockProvider mem) {
        return (LockProvider) Proxy.newProxyInstance(LockProvider.class.getClassLoader(),
                new Class<?>[] {LockProvider.class}, (proxy, method, args) -> {
                    if (method.getName().equals("capabilities")) {
                        Set<Capability> declared = EnumSet.copyOf(mem.capabilities());
                        declared.add(Capability.SESSION_BOUND);
                        return declared;
                    }
                    if (method.isDefault()) {
                        return java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args);
                    }
                    return method.invoke(mem, args);
                });
    }

    @Test
    void theClientEnforcesTheTtlWhenAnyStoreInUseAppliesNone() {
        ProviderContext context = new ProviderContext("ttl-check", (grant, reason, cause) -> { });
        LockProvider session = sessionBound(new MemLockProviderFactory().create(LockUri.parse(oldStore), context));
        LockProvider ttl = new MemLockProviderFactory().create(LockUri.parse(newStore), context);
        assertFalse(session.appliesTtl());
        assertTrue(ttl.appliesTtl());
        for (MigrationPhase phase : MigrationPhase.values()) {
            PhaseGuard guard = PhaseGuard.observer("ttl-check", phase, List.of(session, ttl));
            boolean sessionInUse = phase != MigrationPhase.TO;
            assertEquals(!sessionInUse, new MigratingLockProvider(phase, session, ttl, context.lossListener(), guard)
                    .appliesTtl(), phase + " over a session-bound old store and a TTL new store");
        }
        ttl.close();
        session.close();
    }

    @Test
    void tokensKeepIncreasingThroughTheWholeRollout() {
        String name = "order:" + UUID.randomUUID();
        long last = 0;
        for (MigrationPhase phase : List.of(MigrationPhase.FROM, MigrationPhase.DUAL, MigrationPhase.TO)) {
            try (LockClient client = LockClient.open(uri(phase))) {
                for (int i = 0; i < 3; i++) {
                    try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(1))) {
                        assertTrue(lease.fencingToken() > last, phase + ": token " + lease.fencingToken() + " after " + last);
                        last = lease.fencingToken();
                    }
                }
            }
        }
        assertTrue(last > MigratingLockProvider.NEW_STORE_EPOCH, "phase to uses new-store tokens");
    }

    @Test
    void dualClientAfterANewStoreHolderGetsAHigherToken() {
        String name = "pay:" + UUID.randomUUID();
        try (LockClient dual = LockClient.open(uri(MigrationPhase.DUAL))) {
            long dualBefore;
            try (Lease lease = dual.lock(name).acquire(Duration.ofSeconds(1))) {
                dualBefore = lease.fencingToken();
            }
            long newStoreToken;
            try (LockClient to = LockClient.open(uri(MigrationPhase.TO));
                 Lease lease = to.lock(name).acquire(Duration.ofSeconds(1))) {
                newStoreToken = lease.fencingToken();
            }
            try (Lease lease = dual.lock(name).acquire(Duration.ofSeconds(1))) {
                assertTrue(newStoreToken > dualBefore);
                assertTrue(lease.fencingToken() > newStoreToken,
                        "dual token " + lease.fencingToken() + " must follow the to-phase token " + newStoreToken);
            }
        }
    }

    @Test
    void guardRefusesAClientThatWouldSkipAPhase() {
        try (LockClient from = LockClient.open(uri(MigrationPhase.FROM))) {
            LockConfigurationException refused = assertThrows(LockConfigurationException.class,
                    () -> LockClient.open(uri(MigrationPhase.TO)).close());
            assertTrue(refused.getMessage().contains(from.clientId()), refused.getMessage());
            assertTrue(refused.getMessage().contains("from"), refused.getMessage());
            List<FleetMember> fleet = Migration.fleet(uri(MigrationPhase.FROM));
            assertEquals(List.of(MigrationPhase.FROM), fleet.stream().map(FleetMember::phase).distinct().toList());
        }
        // Once the from client is gone, the same configuration starts.
        LockClient.open(uri(MigrationPhase.DUAL)).close();
    }

    @Test
    void openingAClientInPhaseToWritesNoMigrationStateItsFirstAcquireDoes() {
        io.locksmith.spi.LockProvider newSide = new io.locksmith.mem.MemLockProviderFactory().create(
                io.locksmith.spi.LockUri.parse(newStore), new io.locksmith.spi.ProviderContext("observer", (g, r, c) -> { }));
        try (LockClient to = LockClient.open(uri(MigrationPhase.TO))) {
            assertTrue(newSide.registry().orElseThrow().list(PhaseGuard.NEW_TOKENS_MARKER).isEmpty(),
                    "opening a client (lockctl inspect does) must not write the new-store-tokens marker");
            to.inspect("order:1");
            assertTrue(newSide.registry().orElseThrow().list(PhaseGuard.NEW_TOKENS_MARKER).isEmpty(),
                    "inspect must not write the new-store-tokens marker");
            to.lock("order:1").acquire(Duration.ofSeconds(1)).close();
            assertTrue(newSide.registry().orElseThrow().list(PhaseGuard.NEW_TOKENS_MARKER)
                    .containsKey(PhaseGuard.NEW_TOKENS_MARKER), "the first acquire in phase to writes the marker");
        } finally {
            newSide.close();
        }
    }

    @Test
    void aMigrationToTheSameStoreOrWithAHostIsRefused() {
        LockConfigurationException same = assertThrows(LockConfigurationException.class,
                () -> LockClient.open("migrate:?from=" + oldStore + "&to=" + oldStore + "&phase=dual"));
        assertTrue(same.getMessage().contains("name the same store"), same.getMessage());
        LockConfigurationException sameRedis = assertThrows(LockConfigurationException.class,
                () -> LockClient.open("migrate:?from=redis://LOCALHOST:6379/0&to=redis://127.0.0.1:6379/0/&phase=from"));
        assertTrue(sameRedis.getMessage().contains("name the same store"), sameRedis.getMessage());
        LockConfigurationException host = assertThrows(LockConfigurationException.class,
                () -> LockClient.open("migrate://somehost?from=" + oldStore + "&to=" + newStore + "&phase=from"));
        assertTrue(host.getMessage().contains("does not take"), host.getMessage());
    }

    @Test
    void badMigrationUrisNameTheProblem() {
        assertThrows(LockConfigurationException.class, () -> LockClient.open("migrate:?from=mem://a&to=mem://b"), "phase");
        LockConfigurationException unknownPhase = assertThrows(LockConfigurationException.class,
                () -> LockClient.open("migrate:?from=mem://a&to=mem://b&phase=sideways"));
        assertTrue(unknownPhase.getMessage().contains("sideways"));
        LockConfigurationException badChild = assertThrows(LockConfigurationException.class,
                () -> LockClient.open("migrate:?from=nosuch://a&to=mem://b&phase=from"));
        assertTrue(badChild.getMessage().contains("nosuch"));
        LockConfigurationException badChildParam = assertThrows(LockConfigurationException.class,
                () -> LockClient.open("migrate:?from=mem://a&from.color=red&to=mem://b&phase=from"));
        assertTrue(badChildParam.getMessage().contains("color"), badChildParam.getMessage());
    }

    record Contention(AtomicInteger overlaps, AtomicInteger tokenRegressions) {
    }

    /** Threads of both clients take turns on one name; counts overlaps and token regressions. */
    static Contention contend(String name, int operations, LockClient... clients) throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger regressions = new AtomicInteger();
        AtomicLong lastToken = new AtomicLong();
        AtomicInteger remaining = new AtomicInteger(operations);
        ExecutorService pool = Executors.newFixedThreadPool(clients.length * 2);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (LockClient client : clients) {
                for (int t = 0; t < 2; t++) {
                    futures.add(pool.submit(() -> {
                        while (remaining.getAndDecrement() > 0) {
                            try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(10))) {
                                if (inside.incrementAndGet() > 1) {
                                    overlaps.incrementAndGet();
                                }
                                if (lease.fencingToken() <= lastToken.get()) {
                                    regressions.incrementAndGet();
                                }
                                lastToken.set(lease.fencingToken());
                                Thread.yield();
                                inside.decrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return new Contention(overlaps, regressions);
    }
}
