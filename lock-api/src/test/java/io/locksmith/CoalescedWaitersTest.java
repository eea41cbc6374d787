package io.locksmith;

import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Local waiters coalesce (issue 29, SPEC R7.11): however many threads of one client wait for one name, the store sees
 * one waiting attempt at a time from that client, and every waiter still gets the lock in turn within its bound.
 */
@Timeout(60)
class CoalescedWaitersTest {

    /** mem:// that counts the acquire attempts it serves, and how many run at once. */
    private static final class CountingStore extends StubStores.OverMem implements LockProviderFactory {
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger mostInFlight = new AtomicInteger();

        CountingStore(String store) {
            super(store, new ProviderContext("counting", (grant, reason, cause) -> { }), "counting://");
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            attempts.incrementAndGet();
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            try {
                return super.tryAcquire(request);
            } finally {
                inFlight.decrementAndGet();
            }
        }

        @Override
        public AutoCloseable subscribe(String name, Runnable onChange) {
            return mem.subscribe(name, onChange);
        }

        @Override
        public Set<String> schemes() {
            return Set.of("counting");
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            return this;
        }
    }

    @Test
    void twoHundredWaitingThreadsMakeOneWaitingAttemptAtATimeAndAllGetTheLockInTurn() throws Exception {
        String store = UUID.randomUUID().toString();
        String name = "hot:" + UUID.randomUUID();
        CountingStore counting = new CountingStore(store);
        try (LockClient holder = LockClient.open("mem://" + store);
             LockClient waiters = ProviderClientBuilder.create().uri("counting://").factory(counting).build()) {
            Lease held = holder.lock(name).acquire(Duration.ofSeconds(1));
            int threads = 200;
            CountDownLatch started = new CountDownLatch(threads);
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            AtomicInteger timeouts = new AtomicInteger();
            AtomicLong lastToken = new AtomicLong(held.fencingToken());
            List<Thread> all = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Thread thread = new Thread(() -> {
                    started.countDown();
                    try (Lease lease = waiters.lock(name).acquire(Duration.ofSeconds(30))) {
                        if (inside.incrementAndGet() != 1
                                || lease.fencingToken() <= lastToken.getAndSet(lease.fencingToken())) {
                            overlaps.incrementAndGet();
                        }
                        inside.decrementAndGet();
                    } catch (LockTimeoutException e) {
                        timeouts.incrementAndGet();
                    }
                });
                thread.start();
                all.add(thread);
            }
            assertTrue(started.await(10, TimeUnit.SECONDS));
            // While the other client holds the lock, the 200 waiters make a handful of store attempts, one at a time.
            await().atMost(Duration.ofSeconds(10)).until(() -> counting.attempts.get() >= 1);
            int whileHeld = counting.attempts.get();
            assertTrue(whileHeld < 20, "200 waiting threads made " + whileHeld + " store attempts on a held lock");
            assertEquals(1, counting.mostInFlight.get(), "waiting attempts of one client ran side by side");
            held.close();
            for (Thread thread : all) {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
            assertEquals(0, overlaps.get(), "two holders at once, or a token that did not increase");
            assertEquals(0, timeouts.get(), "a waiter timed out");
            assertEquals(1, counting.mostInFlight.get(), "waiting attempts of one client ran side by side");
        }
    }
}
