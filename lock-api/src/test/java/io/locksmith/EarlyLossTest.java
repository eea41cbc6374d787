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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A session lost between the store's grant and the client seeing it must still lose the lease. */
class EarlyLossTest {

    /** mem:// whose session "dies" right after every grant, before tryAcquire returns. */
    static final class SessionDiesAtGrant implements LockProviderFactory {
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
                    grant.ifPresent(g -> context.lossListener().lost(g, "session expired right after the grant", null));
                    return grant;
                }
            };
        }
    }

    @Test
    void aLossReportedBeforeTheGrantIsSeenLosesTheLease() {
        try (LockClient client = ProviderClientBuilder.create().uri("dying://" + UUID.randomUUID())
                .factory(new SessionDiesAtGrant()).build()) {
            Lease lease = client.lock("order:" + UUID.randomUUID()).acquire(Duration.ofSeconds(1));
            assertFalse(lease.isHeld());
            LockLostException lost = assertThrows(LockLostException.class, lease::ensureHeld);
            assertEquals(LossReason.SESSION_LOST, lost.event().reason());
            lease.close();
        }
    }
}
