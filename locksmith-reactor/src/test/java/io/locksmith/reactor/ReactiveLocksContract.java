package io.locksmith.reactor;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockTimeoutException;
import io.locksmith.tck.FencedRegister;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link ReactiveLocks} promises, on a real store: the subclasses say which. Each test takes locks of its own
 * name through two clients (the one under test, and another for competing holders), both closed after it.
 */
abstract class ReactiveLocksContract {

    /** Generous bounds: the checks are about what happens, never about how fast. */
    private static final Duration LONG_WAIT = Duration.ofSeconds(60);
    private static final Duration DONE_WITHIN = Duration.ofSeconds(30);

    LockClient client;
    LockClient other;
    String name;

    /** The URI of a fresh store namespace for one test. */
    abstract String storeUri();

    @BeforeEach
    void openClients(TestInfo test) {
        String uri = storeUri();
        client = LockClient.open(uri);
        other = LockClient.open(uri);
        name = "reactive:" + test.getTestMethod().orElseThrow().getName() + ":" + UUID.randomUUID();
    }

    @AfterEach
    void closeClients() {
        client.close();
        other.close();
    }

    /**
     * The reactive scenario: each holding reads a fenced counter, lets go of its thread for an asynchronous
     * step, and writes the value it read plus one. Two holdings at once lose an update; a lock released before the
     * work ran loses many.
     */
    @Test
    void exclusionUnder200ConcurrentSubscriptionsKeepsAFencedCounterExact() {
        FencedRegister counter = new FencedRegister();
        DistributedLock lock = client.lock(name);
        int subscriptions = 200;

        List<Long> seen = Flux.range(0, subscriptions)
                .flatMap(i -> ReactiveLocks.withLock(lock, LONG_WAIT, lease -> incrementAcrossAnAsyncStep(counter,
                        lease)), subscriptions)
                .collectList()
                .block(Duration.ofMinutes(3));

        assertEquals(subscriptions, seen.size());
        assertEquals(subscriptions, counter.value(), "updates lost: " + counter);
        assertEquals(0, counter.overlaps(), "two holdings at once: " + counter);
        assertEquals(0, counter.staleWritesRejected() + counter.staleWritesAccepted(), counter.toString());
        assertEquals(0, counter.tokenMonotonicityViolations(), "tokens did not increase: " + counter);
        assertEquals(0, client.heldCount());
        assertEquals(Optional.empty(), client.inspect(name));
    }

    private static Mono<Long> incrementAcrossAnAsyncStep(FencedRegister counter, Lease lease) {
        return Mono.fromSupplier(() -> {
                    FencedRegister.Hold hold = counter.enter(lease.fencingToken(), UUID.randomUUID().toString());
                    return new Step(hold, counter.value());
                })
                .delayElement(Duration.ofMillis(1))
                .map(step -> {
                    try (FencedRegister.Hold hold = step.hold()) {
                        hold.write(step.read() + 1);
                    }
                    return step.read();
                });
    }

    private record Step(FencedRegister.Hold hold, long read) {
    }

    @Test
    void nothingHappensBeforeSubscriptionAndTheWorkRunsOnlyOnceTheLeaseIsHeld() {
        AtomicInteger calls = new AtomicInteger();
        AtomicReference<Optional<LockInfo>> seenInStore = new AtomicReference<>();
        Mono<Long> guarded = ReactiveLocks.withLock(client.lock(name), LONG_WAIT, lease -> {
            calls.incrementAndGet();
            seenInStore.set(client.inspect(name));
            return Mono.just(lease.fencingToken());
        });
        assertEquals(0, calls.get());
        assertEquals(Optional.empty(), client.inspect(name), "assembling the Mono must not acquire");

        Lease busy = other.lock(name).acquire(LONG_WAIT);
        StepVerifier.create(guarded)
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(200))
                .then(() -> assertEquals(0, calls.get(), "the work ran while another holder had the lock"))
                .then(busy::close)
                .assertNext(token -> assertTrue(token > busy.fencingToken(), "token " + token + " after " + busy))
                .expectComplete()
                .verify(DONE_WITHIN);

        assertEquals(1, calls.get());
        assertEquals(client.clientId(), seenInStore.get().orElseThrow().holder().clientId());
        // The value is emitted once the release is done.
        assertEquals(Optional.empty(), client.inspect(name));
        // Each subscription acquires anew.
        StepVerifier.create(guarded).expectNextCount(1).expectComplete().verify(DONE_WITHIN);
        assertEquals(2, calls.get());
    }

    @Test
    void cancellingAWaitingSubscriptionCancelsTheWaitAndLeavesNothingBehind() {
        Lease busy = other.lock(name).acquire(LONG_WAIT);
        AtomicInteger calls = new AtomicInteger();
        StepVerifier.create(ReactiveLocks.withLock(client.lock(name), LONG_WAIT, lease -> {
                    calls.incrementAndGet();
                    return Mono.just(lease);
                }))
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(200))
                .thenCancel()
                .verify(DONE_WITHIN);
        busy.close();

        // A waiter left queued in the store would be handed the lock now, and keep it from everyone else.
        Lease next = await().atMost(DONE_WITHIN).until(() -> other.lock(name).tryAcquire().orElse(null),
                lease -> lease != null);
        next.close();
        assertEquals(0, calls.get());

        // The same with a bare acquire, whose subscriber would own the lease.
        busy = other.lock(name).acquire(LONG_WAIT);
        StepVerifier.create(ReactiveLocks.acquire(client.lock(name), LONG_WAIT))
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(200))
                .thenCancel()
                .verify(DONE_WITHIN);
        busy.close();
        next = await().atMost(DONE_WITHIN).until(() -> other.lock(name).tryAcquire().orElse(null),
                lease -> lease != null);
        next.close();
        await().atMost(DONE_WITHIN).until(() -> client.heldCount() == 0);
        assertEquals(Optional.empty(), client.inspect(name));
    }

    /**
     * Cancels subscriptions of a free lock at random moments: some before the store was asked, some while it
     * answers, some just as the lease is granted, some while the work runs. Whatever was granted is released.
     */
    @Test
    void cancellingAtAnyMomentNeverLeavesALeaseHeld() {
        DistributedLock lock = client.lock(name);
        for (int i = 0; i < 100; i++) {
            Disposable subscription = ReactiveLocks.withLock(lock, LONG_WAIT,
                    lease -> Mono.just(lease.fencingToken()).delayElement(Duration.ofMillis(1))).subscribe();
            long spin = ThreadLocalRandom.current().nextLong(0, 3_000_000);
            for (long end = System.nanoTime() + spin; System.nanoTime() < end; ) {
                Thread.onSpinWait();
            }
            subscription.dispose();
        }
        await().atMost(DONE_WITHIN).until(() -> client.heldCount() == 0);
        assertEquals(Optional.empty(), client.inspect(name));
        try (Lease lease = other.lock(name).tryAcquire().orElseThrow()) {
            assertTrue(lease.isHeld());
        }
    }

    @Test
    void anErrorOfTheWorkReleasesTheLockAndReachesTheSubscriber() {
        DistributedLock lock = client.lock(name);
        StepVerifier.create(ReactiveLocks.withLock(lock, LONG_WAIT,
                        lease -> Mono.error(new IllegalStateException("boom"))))
                .expectErrorMessage("boom")
                .verify(DONE_WITHIN);
        assertEquals(Optional.empty(), client.inspect(name));
        StepVerifier.create(ReactiveLocks.withLock(lock, LONG_WAIT, lease -> {
                    throw new IllegalArgumentException("thrown while building the work");
                }))
                .expectErrorMessage("thrown while building the work")
                .verify(DONE_WITHIN);
        assertEquals(Optional.empty(), client.inspect(name));
        StepVerifier.create(ReactiveLocks.withLockMany(lock, LONG_WAIT,
                        lease -> Flux.concat(Flux.just(1, 2), Flux.error(new IllegalStateException("third")))))
                .expectNext(1, 2)
                .expectErrorMessage("third")
                .verify(DONE_WITHIN);
        assertEquals(Optional.empty(), client.inspect(name));
        assertEquals(0, client.heldCount());
    }

    @Test
    void aFluxHoldsTheLockUntilItsLastElementAndCancellingItReleases() {
        DistributedLock lock = client.lock(name);
        List<Boolean> heldAtEachElement = new ArrayList<>();
        StepVerifier.create(ReactiveLocks.withLockMany(lock, LONG_WAIT, lease -> Flux.interval(Duration.ofMillis(5))
                        .take(3)
                        .doOnNext(i -> heldAtEachElement.add(client.inspect(name)
                                .filter(info -> info.fencingToken() == lease.fencingToken()).isPresent()))))
                .expectNext(0L, 1L, 2L)
                .expectComplete()
                .verify(DONE_WITHIN);
        assertEquals(List.of(true, true, true), heldAtEachElement);
        assertEquals(Optional.empty(), client.inspect(name));

        StepVerifier.create(ReactiveLocks.withLockMany(lock, LONG_WAIT, lease -> Flux.interval(Duration.ofMillis(5))))
                .expectNext(0L)
                .thenCancel()
                .verify(DONE_WITHIN);
        await().atMost(DONE_WITHIN).until(() -> client.heldCount() == 0 && client.inspect(name).isEmpty());
        // take(1) downstream cancels the work after its first element.
        StepVerifier.create(ReactiveLocks.withLockMany(lock, LONG_WAIT, lease -> Flux.interval(Duration.ofMillis(5)))
                        .take(1))
                .expectNext(0L)
                .expectComplete()
                .verify(DONE_WITHIN);
        await().atMost(DONE_WITHIN).until(() -> client.heldCount() == 0 && client.inspect(name).isEmpty());
    }

    @Test
    void aLockThatStaysBusyFailsWithTimeoutOrIsEmptyAndTheWorkDoesNotRun() {
        AtomicInteger calls = new AtomicInteger();
        try (Lease busy = other.lock(name).acquire(LONG_WAIT)) {
            StepVerifier.create(ReactiveLocks.withLock(client.lock(name), Duration.ofMillis(100), lease -> {
                        calls.incrementAndGet();
                        return Mono.just(1);
                    }))
                    .expectErrorSatisfies(e -> {
                        assertInstanceOf(LockTimeoutException.class, e);
                        assertTrue(e.getMessage().contains(name), e.getMessage());
                    })
                    .verify(DONE_WITHIN);
            StepVerifier.create(ReactiveLocks.tryAcquire(client.lock(name), Duration.ZERO))
                    .expectComplete()
                    .verify(DONE_WITHIN);
            StepVerifier.create(ReactiveLocks.tryAcquire(client.lock(name), Duration.ofMillis(50)))
                    .expectComplete()
                    .verify(DONE_WITHIN);
            assertTrue(busy.isHeld());
        }
        assertEquals(0, calls.get());
        Lease lease = ReactiveLocks.tryAcquire(client.lock(name), Duration.ZERO).block(DONE_WITHIN);
        assertTrue(lease.isHeld());
        StepVerifier.create(ReactiveLocks.release(lease)).expectComplete().verify(DONE_WITHIN);
        assertFalse(lease.isHeld());
        assertEquals(Optional.empty(), client.inspect(name));
    }

    @Test
    void theLeaseIsInTheContextOfTheWorkAndNestedLocksWaitInsteadOfReentering() {
        DistributedLock lock = client.lock(name);
        StepVerifier.create(ReactiveLocks.withLock(lock, LONG_WAIT, lease -> ReactiveLocks.currentLease()
                        .map(current -> current == lease)))
                .expectNext(true)
                .expectComplete()
                .verify(DONE_WITHIN);
        StepVerifier.create(ReactiveLocks.currentLease())
                .expectErrorSatisfies(e -> assertInstanceOf(IllegalStateException.class, e))
                .verify(DONE_WITHIN);

        // Reactive leases are never re-entered: the inner withLock waits for the outer one, which waits for it.
        StepVerifier.create(ReactiveLocks.withLock(lock, LONG_WAIT, outer ->
                        ReactiveLocks.withLock(lock, Duration.ofMillis(200), inner -> Mono.just(inner))))
                .expectError(LockTimeoutException.class)
                .verify(DONE_WITHIN);
        assertEquals(Optional.empty(), client.inspect(name));
    }

    @Test
    void argumentsAreCheckedWhenThePublisherIsBuilt() {
        DistributedLock lock = client.lock(name);
        assertThrows(NullPointerException.class, () -> ReactiveLocks.acquire(null, LONG_WAIT));
        assertThrows(NullPointerException.class, () -> ReactiveLocks.acquire(lock, null));
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> ReactiveLocks.withLock(lock, Duration.ofMillis(-1), lease -> Mono.empty()));
        assertTrue(negative.getMessage().contains(name), negative.getMessage());
        assertThrows(NullPointerException.class, () -> ReactiveLocks.withLockMany(lock, LONG_WAIT, null));
        assertThrows(NullPointerException.class, () -> ReactiveLocks.release(null));
        assertSame(Optional.empty(), client.inspect(name));
    }
}
