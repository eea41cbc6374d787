package io.locksmith;

import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderClientBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An acquire attempt that outlives its wait (the caller's bound ended while the store had it) may leave a queue entry
 * or a grant after the client cleaned up for its owner. The shared client cleans up again once the attempt has ended,
 * for every store: a provider need not remember which owners were cancelled.
 */
class LateAttemptTest {

    /** A store whose first attempt is held until the test lets it go, and then ends as the test says. */
    private static final class SlowFirstAttempt extends StubStores.Stub {
        final CountDownLatch proceed = new CountDownLatch(1);
        final AtomicReference<Owner> slowOwner = new AtomicReference<>();
        final boolean failsLate;
        /** Clean-ups for the slow owner that came after its attempt had ended. */
        final Set<String> cleanedUpAfterTheEnd = ConcurrentHashMap.newKeySet();
        private volatile boolean attemptEnded;

        SlowFirstAttempt(boolean failsLate) {
            super("slow", Capability.FAIR);
            this.failsLate = failsLate;
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            if (!slowOwner.compareAndSet(null, request.owner())) {
                return Optional.empty(); // the lock is taken: later attempts lose at once
            }
            try {
                proceed.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            attemptEnded = true;
            if (failsLate) {
                throw new LockStoreException(request.name(), "slow:// failed after queueing the owner", null);
            }
            return Optional.empty(); // queued: a waiting attempt keeps its place
        }

        @Override
        public void cancel(String name, Owner owner) {
            record("cancel", owner);
        }

        @Override
        public void releaseAmbiguous(String name, Owner owner) {
            record("releaseAmbiguous", owner);
        }

        private void record(String call, Owner owner) {
            Owner slow = slowOwner.get();
            if (attemptEnded && slow != null && slow.id().equals(owner.id())) {
                cleanedUpAfterTheEnd.add(call);
            }
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            return false;
        }

        @Override
        public boolean release(Grant grant) {
            return false;
        }
    }

    private static void waitEndsWhileTheAttemptRuns(SlowFirstAttempt store) {
        try (LockClient client = ProviderClientBuilder.create().uri("slow://").factory(store).build()) {
            assertTrue(client.lock("queue").tryAcquire(Duration.ofMillis(200)).isEmpty());
            store.proceed.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> !store.cleanedUpAfterTheEnd.isEmpty());
        }
    }

    @Test
    void aWaitingAttemptThatEndsAfterItsWaitIsCancelledAgain() {
        SlowFirstAttempt store = new SlowFirstAttempt(false);
        waitEndsWhileTheAttemptRuns(store);
        assertTrue(store.cleanedUpAfterTheEnd.contains("cancel"), "cleaned up with " + store.cleanedUpAfterTheEnd);
    }

    @Test
    void anAttemptThatFailsAfterItsWaitIsReleasedAsAmbiguousAgain() {
        SlowFirstAttempt store = new SlowFirstAttempt(true);
        waitEndsWhileTheAttemptRuns(store);
        assertTrue(store.cleanedUpAfterTheEnd.contains("releaseAmbiguous"), "cleaned up with "
                + store.cleanedUpAfterTheEnd);
    }
}
