package io.locksmith;

import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session-bound store (ZooKeeper, an etcd lease shared by a client) keeps a lock for as long as the holder's
 * session lives, and a stuck holder keeps its session alive. The client enforces the lease time and the maximum
 * hold there by releasing the lock itself, owner-checked, when the lease runs out: at the TTL asked for, after the
 * holder was told, and again until the store answers, the provider reports the lock lost, or the client closes.
 */
class SessionBoundExpiryTest {

    /** Locks without TTL, alive while the owner's session is: what an ephemeral ZooKeeper node is. */
    private static class SessionStore extends StubStores.Stub {
        final Map<String, String> owners = new ConcurrentHashMap<>();
        final AtomicLong tokens = new AtomicLong();
        volatile ProviderContext context;

        SessionStore() {
            super("session", Capability.SESSION_BOUND, Capability.FENCING);
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            this.context = context;
            return this;
        }

        /** What a grant guarantees: the TTL, unless a test shortens it (etcd's shared lease may). */
        Duration validity(Duration ttl) {
            return ttl;
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            if (owners.putIfAbsent(request.name(), request.owner().id()) != null) {
                return Optional.empty();
            }
            return Optional.of(new Grant(request.name(), request.owner(), tokens.incrementAndGet(),
                    validity(request.ttl())));
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            return grant.owner().id().equals(owners.get(grant.name()));
        }

        @Override
        public boolean release(Grant grant) {
            return owners.remove(grant.name(), grant.owner().id());
        }
    }

    @Test
    void aFixedLeaseThatRunsOutIsReleasedInTheStore() {
        SessionStore store = new SessionStore();
        try (LockClient holder = ProviderClientBuilder.create().uri("session://").factory(store).build();
             LockClient other = ProviderClientBuilder.create().uri("session://").factory(store).build()) {
            // 1 s, not 150 ms: a grant answered after its lease ran out is released as late, and a fresh client's
            // first store call on a loaded machine can take longer than that (acquire(ZERO) ended in a time-out once).
            Lease lease = holder.lock("job", LockOptions.builder().leaseTime(Duration.ofSeconds(1)).fixedLease().build())
                    .acquire(Duration.ZERO);
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            await().atMost(Duration.ofSeconds(5)).until(() -> !store.owners.containsKey("job"));
            assertEquals(LossReason.EXPIRED, lost.get().reason());
            try (Lease next = other.lock("job").tryAcquire().orElseThrow()) {
                assertFalse(lease.isHeld());
                lease.close(); // the late close must not free the next holder's lock
                assertEquals(next.holder().clientId(), other.clientId());
                assertEquals(1, store.owners.size());
            }
        }
    }

    @Test
    void aStuckHolderLosesTheLockAtItsMaximumHold() {
        SessionStore store = new SessionStore();
        try (LockClient holder = ProviderClientBuilder.create().uri("session://").factory(store).build()) {
            LockOptions options = LockOptions.builder().leaseTime(Duration.ofSeconds(1)).maxHold(Duration.ofMillis(1500)).build();
            Lease lease = holder.lock("stuck", options).acquire(Duration.ZERO);
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            await().atMost(Duration.ofSeconds(5)).until(() -> !store.owners.containsKey("stuck"));
            assertEquals(LossReason.MAX_HOLD_EXCEEDED, lost.get().reason());
            lease.close();
        }
    }

    @Test
    void theLockGoesAtTheTtlAskedForNotAtAShorterValidityAndTheHolderKnowsFirst() {
        AtomicReference<Lease> holding = new AtomicReference<>();
        AtomicLong releasedAt = new AtomicLong();
        AtomicBoolean heldAtRelease = new AtomicBoolean();
        SessionStore store = new SessionStore() {
            @Override
            Duration validity(Duration ttl) {
                return ttl.dividedBy(2); // the shared lease was last kept alive half a TTL ago
            }

            @Override
            public boolean release(Grant grant) {
                releasedAt.compareAndSet(0, System.nanoTime());
                Lease lease = holding.get();
                heldAtRelease.set(lease == null || lease.isHeld());
                return super.release(grant);
            }
        };
        Duration ttl = Duration.ofSeconds(1);
        try (LockClient holder = ProviderClientBuilder.create().uri("session://").factory(store).build()) {
            long invokedAt = System.nanoTime();
            Lease lease = holder.lock("half", LockOptions.builder().leaseTime(ttl).fixedLease().build())
                    .acquire(Duration.ZERO);
            holding.set(lease);
            await().atMost(Duration.ofSeconds(5)).until(() -> !store.owners.containsKey("half"));
            assertFalse(heldAtRelease.get(), "the lock was released in the store while its holder still held it");
            long after = releasedAt.get() - invokedAt;
            assertTrue(after >= ttl.toNanos(), "released " + after / 1_000_000 + " ms after an acquire with a TTL of "
                    + ttl.toMillis() + " ms: at the grant's shorter validity, not at the TTL (R3.3)");
            lease.close();
        }
    }

    /** A session store whose releases fail (the store unreachable) until {@code failures} of them have. */
    private static class UnreachableAtRelease extends SessionStore {
        final AtomicInteger attempts = new AtomicInteger();
        private final int failures;

        UnreachableAtRelease(int failures) {
            this.failures = failures;
        }

        @Override
        public boolean release(Grant grant) {
            int attempt = attempts.incrementAndGet();
            if (attempt <= failures) {
                failedAttempt(attempt, grant);
                throw new LockStoreException(grant.name(), "session:// did not answer (attempt " + attempt + ")", null);
            }
            return super.release(grant);
        }

        void failedAttempt(int attempt, Grant grant) {
        }
    }

    @Test
    void aReleaseAtTheTtlThatFailsIsSentAgainUntilTheStoreAnswers() {
        UnreachableAtRelease store = new UnreachableAtRelease(4);
        try (LockClient holder = ProviderClientBuilder.create().uri("session://").factory(store).build()) {
            Lease lease = holder.lock("cut", LockOptions.builder().leaseTime(Duration.ofSeconds(1)).fixedLease().build())
                    .acquire(Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> !store.owners.containsKey("cut"));
            assertEquals(5, store.attempts.get(), "four failed releases, then the one that freed the lock");
            assertFalse(lease.isHeld());
            lease.close();
        }
    }

    @Test
    void aReleaseThatFailsAfterTheHolderClosedTheLeaseIsSentAgainUntilTheStoreAnswers() {
        UnreachableAtRelease store = new UnreachableAtRelease(3);
        try (LockClient holder = ProviderClientBuilder.create().uri("session://").factory(store).build()) {
            Lease lease = holder.lock("closed").acquire(Duration.ZERO);
            try {
                lease.close();
            } catch (LockStoreException expected) {
                // the holder learns that its release failed; the client goes on with it
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> !store.owners.containsKey("closed"));
            assertEquals(4, store.attempts.get());
        }
    }

    @Test
    void retriesStopWhenTheProviderReportsTheLockLost() {
        AtomicBoolean reported = new AtomicBoolean();
        AtomicInteger attemptsAfterReport = new AtomicInteger();
        UnreachableAtRelease store = new UnreachableAtRelease(Integer.MAX_VALUE) {
            @Override
            void failedAttempt(int attempt, Grant grant) {
                if (reported.get()) {
                    attemptsAfterReport.incrementAndGet();
                } else if (attempt == 2) {
                    // The session ended: the store frees the lock on its own, the client must stop sending.
                    owners.remove(grant.name(), grant.owner().id());
                    context.lossListener().lost(grant, "the session expired", null);
                    reported.set(true);
                }
            }
        };
        try (LockClient holder = ProviderClientBuilder.create().uri("session://").factory(store).build()) {
            Lease lease = holder.lock("gone", LockOptions.builder().leaseTime(Duration.ofSeconds(1)).fixedLease().build())
                    .acquire(Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(reported::get);
            // Retries come at most a second apart: two seconds without one means they stopped.
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
                    .until(() -> attemptsAfterReport.get() == 0);
            lease.close();
        }
    }

    @Test
    void retriesStopWhenTheClientIsClosed() {
        UnreachableAtRelease store = new UnreachableAtRelease(Integer.MAX_VALUE);
        LockClient holder = ProviderClientBuilder.create().uri("session://").factory(store).build();
        int attemptsAtClose;
        try {
            holder.lock("closing", LockOptions.builder().leaseTime(Duration.ofSeconds(1)).fixedLease().build())
                    .acquire(Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> store.attempts.get() >= 2);
        } finally {
            holder.close();
            attemptsAtClose = store.attempts.get();
        }
        // One attempt may have passed its check just before close and reach the store just after it; no more.
        int atClose = attemptsAtClose;
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
                .until(() -> store.attempts.get() <= atClose + 1);
    }
}
