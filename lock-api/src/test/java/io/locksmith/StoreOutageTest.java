package io.locksmith;

import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SPEC R9.14 in the shared client: a store call that fails with a refused connection makes the outage known; new
 * acquires, {@code tryAcquire()} and a bounded inspect then fail with the store's error without a store call, waits
 * under way end with it at once, and the client's probe ends the outage when the store answers again. A store that
 * fails with time-outs is no outage: a bounded wait rides it out (R7.7), and a local waiter that never asked the
 * store ends with the store's error, not a time-out.
 */
class StoreOutageTest {

    /** How the stub store fails while it is "down". */
    enum Fault {
        NONE, REFUSED, TIMING_OUT
    }

    /** mem:// behind a switch: while down, every call throws as a client over a dead store would. */
    private static final class Switchable implements LockProviderFactory {
        final String store = "outage-" + UUID.randomUUID();
        final AtomicReference<Fault> fault = new AtomicReference<>(Fault.NONE);
        final AtomicInteger acquireCalls = new AtomicInteger();
        final List<String> inspected = new CopyOnWriteArrayList<>();

        @Override
        public Set<String> schemes() {
            return Set.of("switch");
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            return new StubStores.OverMem(store, context, "switch://" + store) {
                @Override
                public Optional<Grant> tryAcquire(AcquireRequest request) {
                    acquireCalls.incrementAndGet();
                    failIfDown(request.name());
                    return super.tryAcquire(request);
                }

                @Override
                public boolean renew(Grant grant, Duration ttl) {
                    failIfDown(grant.name());
                    return super.renew(grant, ttl);
                }

                @Override
                public boolean release(Grant grant) {
                    failIfDown(grant.name());
                    return super.release(grant);
                }

                @Override
                public Optional<LockInfo> inspect(String name) {
                    inspected.add(name);
                    failIfDown(name);
                    return super.inspect(name);
                }
            };
        }

        void failIfDown(String name) {
            switch (fault.get()) {
                case REFUSED -> throw new LockStoreException(name, "switch:// cannot connect",
                        new ConnectException("Connection refused"));
                case TIMING_OUT -> throw new LockStoreException(name, "switch:// did not answer",
                        new SocketTimeoutException("Read timed out"));
                default -> {
                }
            }
        }

        LockClient client() {
            return client("");
        }

        LockClient client(String query) {
            return ProviderClientBuilder.create().uri("switch://" + query).factory(this)
                    .maxPollInterval(Duration.ofMillis(50)).build();
        }
    }

    /** Also with a single store call in flight: the probe, a task that makes one call, must not wait for itself. */
    @org.junit.jupiter.params.ParameterizedTest(name = "client URI query ''{0}''")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"", "?maxInFlight=1"})
    void aRefusedConnectionEndsEveryWaitUnderWayAndFailsNewAcquiresWithoutAStoreCall(String query) throws Exception {
        Switchable store = new Switchable();
        try (LockClient holder = store.client(); LockClient client = store.client(query)) {
            String name = "outage-" + UUID.randomUUID();
            Lease held = holder.lock(name).acquire(Duration.ofSeconds(5));
            List<Thread> threads = new ArrayList<>();
            List<Throwable> outcomes = new CopyOnWriteArrayList<>();
            for (int i = 0; i < 3; i++) {
                Thread thread = new Thread(() -> {
                    try {
                        client.lock(name).acquire(Duration.ofMinutes(5)).close();
                        outcomes.add(new AssertionError("acquired"));
                    } catch (Throwable t) {
                        outcomes.add(t);
                    }
                });
                thread.start();
                threads.add(thread);
            }
            List<CompletableFuture<Lease>> asyncWaits = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                asyncWaits.add(client.lock(name).acquireAsync(Duration.ofMinutes(5)));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> threads.stream().allMatch(t ->
                    t.getState() == Thread.State.TIMED_WAITING || t.getState() == Thread.State.WAITING));

            store.fault.set(Fault.REFUSED);
            // Waits of five minutes end with the store's error as soon as a call has found the store refusing.
            await().atMost(Duration.ofSeconds(10)).until(() -> outcomes.size() == 3
                    && asyncWaits.stream().allMatch(CompletableFuture::isDone));
            for (Throwable outcome : outcomes) {
                assertInstanceOf(LockStoreException.class, outcome);
            }
            for (CompletableFuture<Lease> wait : asyncWaits) {
                Throwable failure = wait.handle((lease, t) -> t).join();
                assertInstanceOf(LockStoreException.class, failure);
            }

            int callsBefore = store.acquireCalls.get();
            int inspectsBefore = store.inspected.size();
            LockStoreException acquire = assertThrows(LockStoreException.class,
                    () -> client.lock("outage-" + UUID.randomUUID()).acquire(Duration.ofMinutes(5)));
            assertTrue(acquire.getMessage().contains("switch://" + store.store) && acquire.getMessage().contains(
                    "unreachable since") && acquire.getMessage().contains("Connection refused"), acquire.getMessage());
            assertInstanceOf(LockStoreException.class, assertThrows(java.util.concurrent.CompletionException.class,
                    () -> client.lock("outage-" + UUID.randomUUID()).acquireAsync(Duration.ofMinutes(5)).join())
                    .getCause());
            assertThrows(LockStoreException.class, () -> client.lock("outage-" + UUID.randomUUID()).tryAcquire());
            assertThrows(LockStoreException.class, () -> client.inspect("outage-probe", Duration.ofSeconds(1)));
            assertEquals(callsBefore, store.acquireCalls.get(), "a known outage fails acquires without a store call");
            assertTrue(store.inspected.subList(inspectsBefore, store.inspected.size()).stream()
                    .noneMatch("outage-probe"::equals), "a bounded inspect fails at once during a known outage");

            // The store comes back: the client's probe ends the outage without any caller's help.
            store.fault.set(Fault.NONE);
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                try {
                    client.inspect("outage-probe", Duration.ofSeconds(1));
                    return true;
                } catch (LockStoreException stillKnown) {
                    return false;
                }
            });
            assertTrue(store.inspected.stream().anyMatch(n -> !n.equals("outage-probe")), "the probe inspected");
            try (Lease lease = client.lock("outage-" + UUID.randomUUID()).acquire(Duration.ofSeconds(5))) {
                assertTrue(lease.isHeld());
            }
            held.close();
        }
    }

    @Test
    void storeTimeOutsAreNoOutageABoundedWaitRidesThemOut() throws Exception {
        Switchable store = new Switchable();
        try (LockClient client = store.client()) {
            store.fault.set(Fault.TIMING_OUT);
            CompletableFuture<Lease> wait = CompletableFuture.supplyAsync(
                    () -> client.lock("blip-" + UUID.randomUUID()).acquire(Duration.ofMinutes(1)));
            await().atMost(Duration.ofSeconds(10)).until(() -> store.acquireCalls.get() >= 2);
            store.fault.set(Fault.NONE);
            try (Lease lease = wait.get(30, java.util.concurrent.TimeUnit.SECONDS)) {
                assertTrue(lease.isHeld(), "a store that timed out is retried within the wait");
            }
        }
    }

    @Test
    void aLocalWaiterThatNeverAskedTheStoreEndsWithTheStoreErrorNotATimeOut() throws Exception {
        Switchable store = new Switchable();
        try (LockClient holder = store.client(); LockClient client = store.client()) {
            String name = "failing-" + UUID.randomUUID();
            Lease held = holder.lock(name).acquire(Duration.ofSeconds(5));
            List<CompletableFuture<Lease>> waits = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                waits.add(client.lock(name).acquireAsync(Duration.ofSeconds(2)));
            }
            store.fault.set(Fault.TIMING_OUT);
            for (CompletableFuture<Lease> wait : waits) {
                Throwable failure = wait.handle((lease, t) -> t).get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertInstanceOf(LockStoreException.class, failure, "a wait on a failing store is not a busy lock");
                assertTrue(!(failure instanceof LockTimeoutException));
            }
            store.fault.set(Fault.NONE);
            held.close();
        }
    }
}
