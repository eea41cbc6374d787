package io.locksmith;

import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.Test;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A store that applies no TTL (etcd keys under the client's shared lease, ZooKeeper's ephemeral nodes) keeps a
 * finished wait's queue place for as long as the client's session lives: the shared client sends the cancel again
 * until the store answers it. Found by R9.15 on etcd: a cancel lost while the store was down left a queue place ahead
 * of everyone, and after the restart nobody got the lock.
 */
class CleanUpUntilAnsweredTest {

    /** mem:// that applies no TTL and fails its first {@code failures} cancels as a store without an answer would. */
    private static final class SessionStore implements LockProviderFactory {
        final String store = "cleanup-" + UUID.randomUUID();
        final AtomicInteger cancels = new AtomicInteger();
        final AtomicInteger answeredCancels = new AtomicInteger();
        final AtomicInteger releases = new AtomicInteger();
        /** Releases to fail first, as a store restarting under them would. */
        volatile int releaseFailures;
        final int failures;
        final boolean appliesTtl;

        SessionStore(int failures, boolean appliesTtl) {
            this.failures = failures;
            this.appliesTtl = appliesTtl;
        }

        @Override
        public Set<String> schemes() {
            return Set.of("session");
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            return new StubStores.OverMem(store, context, "session://" + store) {
                @Override
                public void cancel(String name, Owner owner) {
                    if (cancels.incrementAndGet() <= failures) {
                        throw new LockStoreException(name, "session:// did not answer cancel",
                                new SocketTimeoutException("Read timed out"));
                    }
                    answeredCancels.incrementAndGet();
                }

                @Override
                public boolean release(io.locksmith.spi.Grant grant) {
                    if (releases.incrementAndGet() <= releaseFailures) {
                        throw new LockStoreException(grant.name(), "session:// did not answer release",
                                new SocketTimeoutException("Read timed out"));
                    }
                    return super.release(grant);
                }

                @Override
                public boolean appliesTtl() {
                    return appliesTtl;
                }
            };
        }

        LockClient client() {
            return ProviderClientBuilder.create().uri("session://").factory(this).build();
        }
    }

    @Test
    void aFailedCancelIsSentAgainUntilTheStoreAnswersItWhenTheStoreAppliesNoTtl() {
        SessionStore store = new SessionStore(3, false);
        try (LockClient holder = store.client(); LockClient waiter = store.client()) {
            String name = "cleanup-" + UUID.randomUUID();
            try (Lease held = holder.lock(name).acquire(Duration.ofSeconds(5))) {
                Optional<Lease> none = waiter.lock(name).tryAcquire(Duration.ofMillis(200));
                assertTrue(none.isEmpty());
                // Three failures, then the answer: the client's retries (growing pauses from 100 ms) reach it.
                await().atMost(Duration.ofSeconds(10)).until(() -> store.answeredCancels.get() == 1);
                assertEquals(4, store.cancels.get(), "cancels sent: three failed, the fourth answered, no more");
                assertTrue(held.isHeld());
            }
        }
    }

    @Test
    void aStoreThatAppliesTtlGetsOneTryTheQueuePlaceEndsWithItsTtl() throws Exception {
        SessionStore store = new SessionStore(Integer.MAX_VALUE, true);
        try (LockClient holder = store.client(); LockClient waiter = store.client()) {
            String name = "cleanup-" + UUID.randomUUID();
            try (Lease held = holder.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(waiter.lock(name).tryAcquire(Duration.ofMillis(200)).isEmpty());
                await().atMost(Duration.ofSeconds(5)).until(() -> store.cancels.get() == 1);
            }
            // A second wait's cancel is its own single try: the first was not retried meanwhile.
            try (Lease held = holder.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(waiter.lock(name).tryAcquire(Duration.ofMillis(200)).isEmpty());
                await().atMost(Duration.ofSeconds(5)).until(() -> store.cancels.get() >= 2);
                assertEquals(2, store.cancels.get());
            }
        }
    }

    /**
     * A release that failed (the store restarting under it) is sent again until the store answers, on a store that
     * applies a TTL too: else the lock stays for the rest of its lease. Found by R9.15 on PostgreSQL: a 75 s lease
     * whose release met the restarting server kept the lock from every waiter.
     */
    @Test
    void aFailedReleaseIsSentAgainSoTheLockIsFreeLongBeforeItsTtl() {
        SessionStore store = new SessionStore(0, true);
        store.releaseFailures = 2;
        try (LockClient holder = store.client(); LockClient next = store.client()) {
            String name = "release-" + UUID.randomUUID();
            Lease held = holder.lock(name, LockOptions.builder().leaseTime(Duration.ofSeconds(60)).build())
                    .acquire(Duration.ofSeconds(5));
            LockStoreException failed = org.junit.jupiter.api.Assertions.assertThrows(LockStoreException.class,
                    held::close);
            assertTrue(failed.getMessage().contains("did not answer release"), failed.getMessage());
            // The retries (growing pauses from 100 ms) reach the store: the lock is free within seconds, not 60 s.
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                Optional<Lease> taken = next.lock(name).tryAcquire();
                taken.ifPresent(Lease::close);
                return taken.isPresent();
            });
            assertEquals(3, store.releases.get() - 1, "releases sent: two failed, the third answered, no more (plus"
                    + " the next holder's own)");
        }
    }
}
