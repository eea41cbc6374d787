package io.locksmith;

import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderClientBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bounded wait that meets store errors retries within its bound (rule R7.7), and each retry is a new owner: the
 * failed attempt was released as ambiguous, and stores refuse that owner from then on (Redis and PostgreSQL mark
 * it abandoned so that a late copy of its request cannot take the lock). RedLock x3 failed R7.7 this way: once
 * the clean-up after a failed attempt reached two masters, every later attempt of the same wait was refused.
 */
class RetryAfterStoreErrorTest {

    /** Fails the first acquires with a store error and, as Redis does, refuses any owner released as ambiguous. */
    private static final class BurningProvider extends StubStores.Stub {
        final AtomicInteger failuresLeft;
        final Set<String> abandoned = ConcurrentHashMap.newKeySet();
        final List<String> attemptOwners = new CopyOnWriteArrayList<>();
        final AtomicInteger refused = new AtomicInteger();

        BurningProvider(int failures) {
            super("burning");
            this.failuresLeft = new AtomicInteger(failures);
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            attemptOwners.add(request.owner().id());
            if (failuresLeft.getAndDecrement() > 0) {
                throw new LockStoreException(request.name(), "burning:// did not answer", null);
            }
            if (abandoned.contains(request.owner().id())) {
                refused.incrementAndGet();
                return Optional.empty(); // a late copy of an abandoned attempt: refused
            }
            return Optional.of(new Grant(request.name(), request.owner(), attemptOwners.size(), request.ttl()));
        }

        @Override
        public void releaseAmbiguous(String name, Owner owner) {
            abandoned.add(owner.id());
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            return true;
        }

        @Override
        public boolean release(Grant grant) {
            return true;
        }
    }

    @Test
    void aRetryAfterAStoreErrorIsANewOwnerSoTheStoreDoesNotRefuseIt() {
        BurningProvider store = new BurningProvider(2);
        try (LockClient client = ProviderClientBuilder.create().uri("burning://").factory(store).build()) {
            try (Lease lease = client.lock("retry-after-store-error").acquire(Duration.ofSeconds(10))) {
                assertTrue(lease.isHeld());
            }
        }
        assertEquals(3, store.attemptOwners.size(), "attempts: " + store.attemptOwners);
        assertEquals(3, Set.copyOf(store.attemptOwners).size(), "each attempt after a store error must be a new owner,"
                + " the failed one was released as ambiguous: " + store.attemptOwners);
        assertEquals(0, store.refused.get());
        assertFalse(store.abandoned.contains(store.attemptOwners.get(2)), "the granted owner was released as ambiguous");
    }
}
