package io.locksmith;

import io.locksmith.mem.MemLockProviderFactory;
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
            LockProvider mem = new MemLockProviderFactory().create(LockUri.parse("mem://" + uri.rawHosts().get(0)), context);
            return new LockProvider() {
                @Override
                public Optional<Grant> tryAcquire(AcquireRequest request) {
                    Optional<Grant> grant = mem.tryAcquire(request);
                    grant.ifPresent(g -> context.lossListener().lost(g, "session expired right after the grant", null));
                    return grant;
                }

                @Override
                public boolean renew(Grant grant, Duration ttl) {
                    return mem.renew(grant, ttl);
                }

                @Override
                public boolean release(Grant grant) {
                    return mem.release(grant);
                }

                @Override
                public Optional<LockInfo> inspect(String name) {
                    return mem.inspect(name);
                }

                @Override
                public Set<Capability> capabilities() {
                    return Set.of(Capability.SESSION_BOUND);
                }

                @Override
                public String describe() {
                    return "dying://";
                }

                @Override
                public void close() {
                    mem.close();
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
