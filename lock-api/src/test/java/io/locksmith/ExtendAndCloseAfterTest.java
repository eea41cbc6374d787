package io.locksmith;

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
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Lease#extend} and {@link Lease#closeAfter}: a fixed lease given more (or less) time as the store sees it, and a
 * lease closed with its lock kept for a while (ShedLock's {@code extend} and {@code lockAtLeastFor}).
 */
class ExtendAndCloseAfterTest {

    private static final LockOptions FIXED = LockOptions.builder().leaseTime(Duration.ofMillis(400)).fixedLease().build();

    /** mem:// that counts releases, and applies a TTL of its own or not (as ZooKeeper and etcd do not). */
    private static final class CountingStore implements LockProviderFactory {
        final String store = "extend-" + UUID.randomUUID();
        final AtomicInteger releases = new AtomicInteger();
        final AtomicInteger renewals = new AtomicInteger();
        final boolean appliesTtl;

        CountingStore(boolean appliesTtl) {
            this.appliesTtl = appliesTtl;
        }

        @Override
        public Set<String> schemes() {
            return Set.of("counting");
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            return new StubStores.OverMem(store, context, "counting://" + store) {
                @Override
                public boolean release(Grant grant) {
                    releases.incrementAndGet();
                    return super.release(grant);
                }

                @Override
                public boolean renew(Grant grant, Duration ttl) {
                    renewals.incrementAndGet();
                    return super.renew(grant, ttl);
                }

                @Override
                public boolean appliesTtl() {
                    return appliesTtl;
                }
            };
        }

        LockClient client() {
            return ProviderClientBuilder.create().uri("counting://").factory(this).build();
        }
    }

    @Test
    void anExtendedFixedLeaseOutlivesItsFirstTimeAndKeepsOthersOut() {
        String name = "extend-" + UUID.randomUUID();
        String store = "mem://" + UUID.randomUUID();
        try (LockClient holder = LockClient.open(store); LockClient other = LockClient.open(store)) {
            Lease lease = holder.lock(name, FIXED).acquire(Duration.ofSeconds(2));
            assertTrue(lease.extend(Duration.ofSeconds(30)));
            long extendedAt = System.nanoTime();
            // Past the first 400 ms the lease is still held, and nobody else gets the lock.
            await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() - extendedAt > 800_000_000L);
            assertTrue(lease.isHeld());
            assertTrue(other.lock(name, FIXED).tryAcquire().isEmpty());
            // Less time: the lease runs out at the new, shorter time.
            assertTrue(lease.extend(Duration.ofMillis(300)));
            Optional<Lease> next = other.lock(name, FIXED).tryAcquire(Duration.ofSeconds(5));
            assertTrue(next.isPresent(), "the lock was not free after its lease was cut to 300 ms");
            await().atMost(Duration.ofSeconds(2)).until(() -> !lease.isHeld());
            assertFalse(lease.extend(Duration.ofSeconds(5)), "a lost lease cannot be extended");
            next.get().close();
            lease.close();
        }
    }

    @Test
    void aRenewingLeaseAndBadTimesAreRefused() {
        try (LockClient client = LockClient.open("mem://" + UUID.randomUUID())) {
            String name = "extend-refused-" + UUID.randomUUID();
            try (Lease renewing = client.lock(name).acquire(Duration.ofSeconds(2))) {
                IllegalStateException refused = assertThrows(IllegalStateException.class,
                        () -> renewing.extend(Duration.ofSeconds(5)));
                assertTrue(refused.getMessage().contains(name) && refused.getMessage().contains("fixedLease"),
                        refused.getMessage());
            }
            Lease fixed = client.lock(name, FIXED).acquire(Duration.ofSeconds(2));
            assertThrows(IllegalArgumentException.class, () -> fixed.extend(Duration.ZERO));
            assertThrows(IllegalArgumentException.class, () -> fixed.extend(Duration.ofDays(2)));
            assertThrows(NullPointerException.class, () -> fixed.extend(null));
            assertThrows(IllegalArgumentException.class, () -> fixed.closeAfter(Duration.ofMillis(-1)));
            fixed.close();
            assertFalse(fixed.extend(Duration.ofSeconds(1)), "a closed lease cannot be extended");
        }
    }

    @Test
    void aLeaseClosedAfterADelayKeepsItsLockUntilThenInAStoreWithATtl() {
        CountingStore store = new CountingStore(true);
        try (LockClient holder = store.client(); LockClient other = store.client()) {
            String name = "close-after-" + UUID.randomUUID();
            Lease lease = holder.lock(name, LockOptions.builder().leaseTime(Duration.ofSeconds(30)).fixedLease().build())
                    .acquire(Duration.ofSeconds(2));
            lease.closeAfter(Duration.ofMillis(500));
            assertFalse(lease.isHeld());
            assertEquals(0, holder.heldCount());
            assertTrue(other.lock(name, FIXED).tryAcquire().isEmpty(), "the lock was free at once");
            Optional<Lease> next = other.lock(name, FIXED).tryAcquire(Duration.ofSeconds(5));
            assertTrue(next.isPresent(), "the lock kept for 500 ms (of a 30 s lease) was not free 5 s later");
            next.get().close();
            assertEquals(1, store.releases.get(), "the store's TTL freed the kept lock: only the next holder released");
        }
    }

    @Test
    void aLeaseClosedAfterADelayIsReleasedByTheClientThenInAStoreWithoutATtl() {
        CountingStore store = new CountingStore(false);
        try (LockClient holder = store.client(); LockClient other = store.client()) {
            String name = "close-after-session-" + UUID.randomUUID();
            Lease lease = holder.lock(name, LockOptions.builder().leaseTime(Duration.ofSeconds(30)).fixedLease().build())
                    .acquire(Duration.ofSeconds(2));
            lease.closeAfter(Duration.ofMillis(500));
            assertFalse(lease.isHeld());
            assertTrue(other.lock(name, FIXED).tryAcquire().isEmpty(), "the lock was free at once");
            await().atMost(Duration.ofSeconds(5)).until(() -> store.releases.get() == 1);
            assertTrue(other.lock(name, FIXED).tryAcquire(Duration.ofSeconds(2)).map(next -> {
                next.close();
                return true;
            }).orElse(false));
        }
    }
}
