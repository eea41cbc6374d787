package io.locksmith;

import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session lost between the store's grant and the client seeing it: the grant is never handed out as a lease (the
 * caller would work under a lock the store may already have given the next holder: found by a safety run through
 * elections on a ZooKeeper ensemble), and a bounded wait goes on within its bound.
 */
class EarlyLossTest {

    /** mem:// whose session "dies" right after the first {@code deaths} grants, before tryAcquire returns. */
    static final class SessionDiesAtGrant implements LockProviderFactory {
        final java.util.concurrent.atomic.AtomicInteger grants = new java.util.concurrent.atomic.AtomicInteger();
        final int deaths;

        SessionDiesAtGrant(int deaths) {
            this.deaths = deaths;
        }

        @Override
        public Set<String> schemes() {
            return Set.of("dying");
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            return new StubStores.OverMem(uri.rawHosts().get(0), context, Set.of(Capability.SESSION_BOUND), "dying://") {
                @Override
                public Optional<Grant> tryAcquire(AcquireRequest request) {
                    Optional<Grant> grant = mem.tryAcquire(request);
                    grant.ifPresent(g -> {
                        if (grants.incrementAndGet() <= deaths) {
                            context.lossListener().lost(g, "session expired right after the grant", null);
                        }
                    });
                    return grant;
                }
            };
        }
    }

    @Test
    void aGrantLostBeforeItIsSeenIsNotHandedOutAndTheWaitGoesOn() {
        SessionDiesAtGrant store = new SessionDiesAtGrant(1);
        try (LockClient client = ProviderClientBuilder.create().uri("dying://" + UUID.randomUUID())
                .factory(store).build()) {
            Lease lease = client.lock("order:" + UUID.randomUUID()).acquire(Duration.ofSeconds(5));
            assertTrue(lease.isHeld(), "the acquire handed out a lease lost at its grant");
            assertEquals(2, store.grants.get(), "the first grant was lost: the lease is the second's");
            lease.close();
        }
    }

    @Test
    void aStoreThatLosesEveryGrantEndsTheWaitWithoutALease() {
        SessionDiesAtGrant store = new SessionDiesAtGrant(Integer.MAX_VALUE);
        try (LockClient client = ProviderClientBuilder.create().uri("dying://" + UUID.randomUUID())
                .factory(store).build()) {
            String name = "order:" + UUID.randomUUID();
            assertTrue(client.lock(name).tryAcquire().isEmpty(), "a grant lost at once was handed out");
            assertTrue(client.lock(name).tryAcquire(Duration.ofMillis(500)).isEmpty());
            assertEquals(0, client.heldCount());
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> client.inspect(name).isEmpty());
        }
    }
}
