package io.locksmith;

import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Issue 14, items 1 and 2: lease limits, late grants, and no grant left behind by a failure after it. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeaseLimitsTest {

    /** mem:// with every acquire counted and, optionally, slowed down or its grant altered. */
    static final class CountingMem implements LockProviderFactory {
        final AtomicInteger acquires = new AtomicInteger();
        final Duration delay;
        final UnaryOperator<Grant> alter;

        CountingMem(Duration delay, UnaryOperator<Grant> alter) {
            this.delay = delay;
            this.alter = alter;
        }

        @Override
        public Set<String> schemes() {
            return Set.of("counting");
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            return new StubStores.OverMem(UUID.randomUUID().toString(), context, "counting://") {
                @Override
                public Optional<Grant> tryAcquire(AcquireRequest request) {
                    acquires.incrementAndGet();
                    Optional<Grant> grant = mem.tryAcquire(request);
                    try {
                        Thread.sleep(delay.toMillis());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return grant.map(alter);
                }
            };
        }
    }

    @Test
    void aLeaseBeyondTheMaximumIsRefusedAtConfiguration() {
        LockConfigurationException fromUri = assertThrows(LockConfigurationException.class,
                () -> LockClient.open("mem://?lease=1000000d"));
        assertTrue(fromUri.getMessage().contains("leaseTime must be at most PT24H"), fromUri.getMessage());
        IllegalArgumentException fromCode = assertThrows(IllegalArgumentException.class,
                () -> LockOptions.builder().leaseTime(Duration.ofDays(1_000_000)));
        assertTrue(fromCode.getMessage().contains("at most PT24H"), fromCode.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LockOptions.builder().maxHold(Duration.ofDays(31)));
        // The maximum itself works end to end (no overflow anywhere in the deadline arithmetic).
        try (LockClient client = LockClient.open("mem://")) {
            LockOptions longest = LockOptions.builder().leaseTime(LockOptions.MAX_LEASE_TIME)
                    .maxHold(LockOptions.MAX_HOLD).build();
            try (Lease lease = client.lock("huge", longest).acquire(Duration.ofSeconds(1))) {
                assertTrue(lease.isHeld());
            }
            assertTrue(client.inspect("huge").isEmpty());
        }
    }

    @Test
    void aLeaseUnderTheStoresMinimumIsRefusedBeforeAnyStoreCall() {
        CountingMem store = new CountingMem(Duration.ZERO, UnaryOperator.identity());
        try (LockClient client = ProviderClientBuilder.create().uri("counting://").factory(store).build()) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> client.lock("tiny", LockOptions.builder().leaseTime(Duration.ofMillis(1)).build()));
            assertTrue(refused.getMessage().contains("under the PT0.02S minimum of counting://"), refused.getMessage());
            assertEquals(0, store.acquires.get());
        }
        LockConfigurationException fromUri = assertThrows(LockConfigurationException.class,
                () -> LockClient.open("mem://?lease=1ms"));
        assertTrue(fromUri.getMessage().contains("minimum"), fromUri.getMessage());
    }

    @Test
    void grantsThatComeTooLateEndInAClearErrorAfterAFewTriesAndLeaveNothingBehind() {
        // Every grant comes back after its 30 ms lease has run out on the client.
        CountingMem store = new CountingMem(Duration.ofMillis(40), UnaryOperator.identity());
        try (LockClient client = ProviderClientBuilder.create().uri("counting://").factory(store).build()) {
            DistributedLock lock = client.lock("slow", LockOptions.builder().leaseTime(Duration.ofMillis(30)).build());
            LockStoreException thrown = assertThrows(LockStoreException.class, () -> lock.acquire(Duration.ofSeconds(5)));
            assertTrue(thrown.getMessage().contains("too short"), thrown.getMessage());
            assertEquals(3, store.acquires.get(), "a grant that comes too late must not be retried at once, again and again");
            assertTrue(client.inspect("slow").isEmpty(), "a late grant must be released");
        }
    }

    @Test
    void aFailureAfterTheStoreGrantedReleasesTheGrant() {
        // A broken provider answers with a grant of another owner: the client refuses it, and must not leave the
        // lock the store really granted to this owner behind.
        CountingMem store = new CountingMem(Duration.ZERO, grant -> new Grant(grant.name(),
                new Owner("somebody-else", grant.owner().holder()), grant.fencingToken(), grant.validity()));
        try (LockClient client = ProviderClientBuilder.create().uri("counting://").factory(store).build()) {
            assertThrows(IllegalStateException.class, () -> client.lock("odd").tryAcquire());
            assertTrue(client.inspect("odd").isEmpty(), "the grant must be released when the acquire fails after it");
        }
    }
}
