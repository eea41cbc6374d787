package io.locksmith;

import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thread interrupted while it closes a lease (an executor's shutdownNow, a cancel(true), the end of a load run) on a
 * store without a call time limit (the call runs on a pool thread): the store call goes on and removes the lock, as a
 * store client that does not honour interrupts does. The release is done; the lease must not be reported lost.
 */
class InterruptedReleaseTest {

    /** mem:// whose first release is held until the client interrupts it, and then completes (it ignores interrupts). */
    private static final class InterruptedRelease extends StubStores.OverMem {
        final CountDownLatch started = new CountDownLatch(1);
        final AtomicBoolean first = new AtomicBoolean(true);
        final List<Boolean> results = new CopyOnWriteArrayList<>();

        InterruptedRelease(String store, ProviderContext context) {
            super(store, context, "interrupted-release://");
        }

        @Override
        public boolean release(Grant grant) {
            if (first.compareAndSet(true, false)) {
                started.countDown();
                try {
                    // Until the client passes its caller's interrupt on to this call.
                    new CountDownLatch(1).await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            boolean removed = mem.release(grant);
            results.add(removed);
            return removed;
        }
    }

    @Test
    void aReleaseThatRemovedTheLockIsNotReportedAsALossWhenItsCallerWasInterrupted() throws Exception {
        String store = "interrupted-release-" + UUID.randomUUID();
        AtomicReference<InterruptedRelease> provider = new AtomicReference<>();
        LockProviderFactory factory = new LockProviderFactory() {
            @Override
            public Set<String> schemes() {
                return Set.of("interrupted-release");
            }

            @Override
            public LockProvider create(LockUri uri, ProviderContext context) {
                provider.set(new InterruptedRelease(store, context));
                return provider.get();
            }
        };
        try (LockClient client = ProviderClientBuilder.create().uri("interrupted-release://").factory(factory).build()) {
            Lease lease = client.lock("order:1").acquire(Duration.ofSeconds(1));
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            Thread closer = new Thread(lease::close, "closer");
            closer.start();
            assertTrue(provider.get().started.await(10, TimeUnit.SECONDS), "the release did not start");
            closer.interrupt();
            closer.join(TimeUnit.SECONDS.toMillis(10));
            assertFalse(closer.isAlive(), "close() did not return");
            assertTrue(client.lock("order:1").tryAcquire().isPresent(), "the lock was not released");
            assertNull(lost.get(), "a release that removed the lock was reported as a loss: " + lost.get()
                    + " (store answers to release: " + provider.get().results + ")");
            assertEquals(List.of(true), provider.get().results, "the lock was released once");
        }
    }
}
