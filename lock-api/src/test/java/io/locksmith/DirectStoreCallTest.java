package io.locksmith;

import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.ProviderClientBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A provider call runs on the caller's thread only when the provider's stated call time limit fits in the caller's
 * bound ({@code LockProvider.callTimeLimit()}); otherwise, and for a provider that states none, on another thread,
 * which the caller stops waiting for at its bound.
 */
class DirectStoreCallTest {

    /** A free-for-all store that records which thread made each call. */
    private static final class RecordingProvider extends StubStores.Stub {
        final Optional<Duration> limit;
        final Duration commandTimeout;
        final List<Thread> acquireThreads = new CopyOnWriteArrayList<>();
        final List<Thread> releaseThreads = new CopyOnWriteArrayList<>();
        final Set<String> held = ConcurrentHashMap.newKeySet();
        volatile long token;

        RecordingProvider(Optional<Duration> limit, Duration commandTimeout) {
            super("recording");
            this.limit = limit;
            this.commandTimeout = commandTimeout;
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            acquireThreads.add(Thread.currentThread());
            if (!held.add(request.name())) {
                return Optional.empty();
            }
            return Optional.of(new Grant(request.name(), request.owner(), ++token, request.ttl()));
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            return held.contains(grant.name());
        }

        @Override
        public boolean release(Grant grant) {
            releaseThreads.add(Thread.currentThread());
            return held.remove(grant.name());
        }

        @Override
        public Duration commandTimeout() {
            return commandTimeout;
        }

        @Override
        public Optional<Duration> callTimeLimit() {
            return limit;
        }
    }

    private static LockClient open(RecordingProvider store) {
        return ProviderClientBuilder.create().uri("recording://").factory(store).build();
    }

    private static String name() {
        return "direct-" + UUID.randomUUID();
    }

    @Test
    void aLimitWithinTheCommandTimeOutRunsAcquireAndReleaseOnTheCallersThread() {
        RecordingProvider store = new RecordingProvider(Optional.of(Duration.ofSeconds(1)), Duration.ofSeconds(2));
        try (LockClient client = open(store)) {
            client.lock(name()).tryAcquire().orElseThrow().close();
            client.lock(name()).tryAcquire(Duration.ofSeconds(5)).orElseThrow().close();
        }
        assertEquals(List.of(Thread.currentThread(), Thread.currentThread()), store.acquireThreads);
        assertEquals(List.of(Thread.currentThread(), Thread.currentThread()), store.releaseThreads);
    }

    @Test
    void aLimitEqualToTheCommandTimeOutRunsAcquireAndReleaseOnTheCallersThread() {
        // The Redis transports state their command time-out as their limit, and a release and an attempt are bounded
        // by exactly that: the nanoseconds spent taking a turn must not make it "not fit".
        RecordingProvider store = new RecordingProvider(Optional.of(Duration.ofSeconds(2)), Duration.ofSeconds(2));
        try (LockClient client = open(store)) {
            client.lock(name()).tryAcquire().orElseThrow().close();
            client.lock(name()).tryAcquire(Duration.ofSeconds(5)).orElseThrow().close();
        }
        assertEquals(List.of(Thread.currentThread(), Thread.currentThread()), store.acquireThreads);
        assertEquals(List.of(Thread.currentThread(), Thread.currentThread()), store.releaseThreads);
    }

    @Test
    void noStatedLimitHandsEveryCallToAnotherThread() {
        RecordingProvider store = new RecordingProvider(Optional.empty(), Duration.ofSeconds(2));
        try (LockClient client = open(store)) {
            client.lock(name()).tryAcquire().orElseThrow().close();
        }
        assertNotEquals(Thread.currentThread(), store.acquireThreads.get(0));
        assertNotEquals(Thread.currentThread(), store.releaseThreads.get(0));
    }

    @Test
    void aLimitLongerThanTheCallersBoundHandsTheCallOff() {
        // tryAcquire() and a release are bounded by the command time-out (2 s): a 3 s limit does not fit.
        RecordingProvider store = new RecordingProvider(Optional.of(Duration.ofSeconds(3)), Duration.ofSeconds(2));
        try (LockClient client = open(store)) {
            client.lock(name()).tryAcquire().orElseThrow().close();
        }
        assertNotEquals(Thread.currentThread(), store.acquireThreads.get(0));
        assertNotEquals(Thread.currentThread(), store.releaseThreads.get(0));
    }

    @Test
    void theLastAttemptOfAWaitThatCannotFitTheLimitIsHandedOff() {
        // A wait of 150 ms bounds its attempts by what is left of it (at least 100 ms): a 1 s limit fits none.
        RecordingProvider store = new RecordingProvider(Optional.of(Duration.ofSeconds(1)), Duration.ofSeconds(2));
        try (LockClient client = open(store)) {
            String name = name();
            client.lock(name).tryAcquire(Duration.ofMillis(150)).orElseThrow().close();
        }
        assertNotEquals(Thread.currentThread(), store.acquireThreads.get(0));
        // The release has the command time-out, which the limit fits.
        assertEquals(Thread.currentThread(), store.releaseThreads.get(0));
    }

    @Test
    void aCallerWithItsInterruptFlagSetIsNotCalledDirectlyAndKeepsTheFlag() {
        RecordingProvider store = new RecordingProvider(Optional.of(Duration.ofSeconds(1)), Duration.ofSeconds(2));
        try (LockClient client = open(store)) {
            String name = name();
            Thread.currentThread().interrupt();
            try {
                // tryAcquire() does not wait, so it does not check the flag itself; the store call goes to another
                // thread, as before direct calls existed. Whether the interrupt or the answer is seen first there
                // is a race: both outcomes are fine, a direct call on this thread is not.
                try {
                    client.lock(name).tryAcquire().ifPresent(Lease::close);
                } catch (LockInterruptedException expected) {
                    // the interrupt was seen first
                }
                assertTrue(Thread.currentThread().isInterrupted());
            } finally {
                Thread.interrupted();
            }
            assertTrue(store.acquireThreads.stream().noneMatch(thread -> thread == Thread.currentThread()));
        }
    }

    @Test
    void aClosedClientRefusesADirectCall() {
        RecordingProvider store = new RecordingProvider(Optional.of(Duration.ofSeconds(1)), Duration.ofSeconds(2));
        LockClient client = open(store);
        DistributedLock lock = client.lock(name());
        client.close();
        assertThrows(IllegalStateException.class, lock::tryAcquire);
        assertTrue(store.acquireThreads.isEmpty());
    }
}
