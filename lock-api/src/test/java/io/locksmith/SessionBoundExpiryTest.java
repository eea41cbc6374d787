package io.locksmith;

import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.ProviderClientBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A session-bound store (ZooKeeper, an etcd lease shared by a client) keeps a lock for as long as the holder's
 * session lives, and a stuck holder keeps its session alive. The client enforces the lease time and the maximum
 * hold there by releasing the lock itself, owner-checked, when the lease runs out.
 */
class SessionBoundExpiryTest {

    /** Locks without TTL, alive while the owner's session is: what an ephemeral ZooKeeper node is. */
    private static final class SessionStore extends StubStores.Stub {
        final Map<String, String> owners = new ConcurrentHashMap<>();
        final AtomicLong tokens = new AtomicLong();

        SessionStore() {
            super("session", Capability.SESSION_BOUND, Capability.FENCING);
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            if (owners.putIfAbsent(request.name(), request.owner().id()) != null) {
                return Optional.empty();
            }
            return Optional.of(new Grant(request.name(), request.owner(), tokens.incrementAndGet(), request.ttl()));
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
}
