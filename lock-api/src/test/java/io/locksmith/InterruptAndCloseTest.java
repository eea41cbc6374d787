package io.locksmith;

import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderClientBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Interrupts and closes must end waits cleanly: an interrupt that cuts a store call short is an interrupted
 * wait, the clean-up after an interrupted wait reaches the store, and closing a client wakes its waiters.
 */
class InterruptAndCloseTest {

    /** A store whose lock is always taken, whose acquire may block, and which records its clean-up calls. */
    private static class StubbornProvider extends StubStores.Stub {
        final boolean blockInAcquire;
        final CountDownLatch inAcquire = new CountDownLatch(1);
        final List<String> cleanups = new CopyOnWriteArrayList<>();

        StubbornProvider(boolean blockInAcquire) {
            super("stubborn");
            this.blockInAcquire = blockInAcquire;
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            inAcquire.countDown();
            if (blockInAcquire) {
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    // What a careful backend does: keep the flag, report a store failure.
                    Thread.currentThread().interrupt();
                    throw new LockStoreException(request.name(), "store call interrupted", e);
                }
            }
            return Optional.empty();
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            return false;
        }

        @Override
        public boolean release(Grant grant) {
            return false;
        }

        @Override
        public void releaseAmbiguous(String name, Owner owner) {
            cleanups.add("releaseAmbiguous interrupted=" + Thread.currentThread().isInterrupted());
        }

        @Override
        public void cancel(String name, Owner owner) {
            cleanups.add("cancel interrupted=" + Thread.currentThread().isInterrupted());
        }
    }

    /** A thread waiting for a lock, and how its wait ended (null if it got the lock). */
    private record Waiting(Thread thread, CompletableFuture<Throwable> outcome) {
    }

    private static Waiting waitInThread(DistributedLock lock, Duration maxWait, AtomicBoolean flagAfter) {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                lock.acquire(maxWait).close();
                outcome.complete(null);
            } catch (Throwable t) {
                flagAfter.set(Thread.currentThread().isInterrupted());
                outcome.complete(t);
            }
        }, "waiter-" + lock.name());
        thread.setDaemon(true);
        thread.start();
        return new Waiting(thread, outcome);
    }

    @Test
    void anInterruptDuringAStoreCallIsAnInterruptedWaitAndTheCleanUpStillRuns() throws Exception {
        StubbornProvider store = new StubbornProvider(true);
        try (LockClient client = ProviderClientBuilder.create().uri("stubborn://").factory(store).build()) {
            AtomicBoolean flagAfter = new AtomicBoolean();
            Waiting waiting = waitInThread(client.lock("order:1"), Duration.ofSeconds(30), flagAfter);
            assertTrue(store.inAcquire.await(10, TimeUnit.SECONDS));
            waiting.thread().interrupt();
            Throwable thrown = waiting.outcome().get(10, TimeUnit.SECONDS);
            assertInstanceOf(LockInterruptedException.class, thrown, "an interrupted store call is an interrupted wait");
            assertEquals("order:1", ((LockException) thrown).lockName());
            assertEquals(1, thrown.getSuppressed().length, "the store failure is kept as suppressed");
            assertTrue(flagAfter.get(), "the interrupt flag must be set again");
            assertEquals(List.of("releaseAmbiguous interrupted=false", "cancel interrupted=false"), store.cleanups,
                    "the clean-up store calls must run without the interrupt flag, or they fail at once");
        }
    }

    @Test
    void anInterruptedWaiterCancelsItsQueueEntryWithoutTheInterruptFlag() throws Exception {
        StubbornProvider store = new StubbornProvider(false);
        try (LockClient client = ProviderClientBuilder.create().uri("stubborn://").factory(store).build()) {
            AtomicBoolean flagAfter = new AtomicBoolean();
            Waiting waiting = waitInThread(client.lock("order:2"), Duration.ofSeconds(30), flagAfter);
            assertTrue(store.inAcquire.await(10, TimeUnit.SECONDS));
            await().atMost(Duration.ofSeconds(10)).until(() -> waiting.thread().getState() == Thread.State.TIMED_WAITING);
            waiting.thread().interrupt();
            Throwable thrown = waiting.outcome().get(10, TimeUnit.SECONDS);
            assertInstanceOf(LockInterruptedException.class, thrown);
            assertTrue(flagAfter.get(), "the interrupt flag must be set again");
            assertEquals(List.of("cancel interrupted=false"), store.cleanups);
        }
    }

    @Test
    void closingAClientWakesItsWaitersAtOnce() throws Exception {
        String store = "mem://close-" + UUID.randomUUID();
        String name = "order:3";
        try (LockClient holder = LockClient.open(store)) {
            // A poll interval far beyond the bound below: only the close can end the wait in time.
            LockClient closing = LockClient.builder().uri(store).maxPollInterval(Duration.ofMinutes(5)).build();
            Lease held = holder.lock(name).acquire(Duration.ZERO);
            AtomicBoolean flagAfter = new AtomicBoolean();
            Waiting waiting = waitInThread(closing.lock(name), Duration.ofMinutes(5), flagAfter);
            await().atMost(Duration.ofSeconds(10)).until(() -> waiting.thread().getState() == Thread.State.TIMED_WAITING);
            closing.close();
            Throwable thrown = waiting.outcome().get(20, TimeUnit.SECONDS);
            assertInstanceOf(IllegalStateException.class, thrown, "a wait on a closed client ends with IllegalStateException");
            assertTrue(thrown.getMessage().contains("closed"), thrown.getMessage());
            assertFalse(flagAfter.get());
            assertTrue(held.isHeld());
            held.close();
        }
    }

    /**
     * A queueing store hands a released lock to the first waiter still queued: a wait that its client's close ended
     * must drop its place before the client closes the provider, or the store hands the lock to nobody (R1.5 found
     * this on Redis: a lock handed to the place of a closed client's waiter stayed taken until it ran out).
     */
    @Test
    void closingAClientCancelsItsWaitersPlacesBeforeClosingTheStore() throws Exception {
        List<String> calls = new CopyOnWriteArrayList<>();
        StubbornProvider store = new StubbornProvider(false) {
            @Override
            public void cancel(String name, Owner owner) {
                // Slower than the waiter's wake-up, so that a close that did not wait for it would overtake it.
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
                calls.add("cancel " + name);
            }

            @Override
            public void close() {
                calls.add("close");
            }
        };
        LockClient client = ProviderClientBuilder.create().uri("stubborn://").factory(store)
                .maxPollInterval(Duration.ofMinutes(5)).build();
        AtomicBoolean flagAfter = new AtomicBoolean();
        Waiting waiting = waitInThread(client.lock("order:4"), Duration.ofMinutes(5), flagAfter);
        assertTrue(store.inAcquire.await(10, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(10)).until(() -> waiting.thread().getState() == Thread.State.TIMED_WAITING);
        client.close();
        assertInstanceOf(IllegalStateException.class, waiting.outcome().get(20, TimeUnit.SECONDS));
        assertEquals(List.of("cancel order:4", "close"), calls, "the close did not wait for the waiter's cancel");
    }
}
