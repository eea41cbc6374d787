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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Regression (found by the TCK's randomized history once it closed clients under way): a grant that lands while its
 * client closes was handed out as a lease already lost, on a lock another client could already hold; and a close
 * that did not wait for the acquire left such a grant in a store without sessions until its TTL.
 */
class CloseDuringAcquireTest {

    /** mem://, with every acquire held at the store until the test lets it through. */
    private static final class HeldAtTheStore implements LockProviderFactory {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch proceed = new CountDownLatch(1);

        @Override
        public Set<String> schemes() {
            return Set.of("held");
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            String store = uri.rawHosts().get(0);
            return new StubStores.OverMem(store, context, Set.of(Capability.FENCING),
                    "held at the store over mem://" + store) {
                @Override
                public Optional<Grant> tryAcquire(AcquireRequest request) {
                    entered.countDown();
                    try {
                        proceed.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return mem.tryAcquire(request);
                }
            };
        }
    }

    @Test
    void aGrantThatLandsWhileTheClientClosesIsReleasedAndHandedToNobody() throws Exception {
        String store = "close-during-acquire-" + UUID.randomUUID();
        HeldAtTheStore factory = new HeldAtTheStore();
        LockClient closing = ProviderClientBuilder.create().uri("held://" + store).factory(factory).build();
        CompletableFuture<Lease> acquire = CompletableFuture.supplyAsync(() -> closing.lock("job").acquire(Duration.ofSeconds(5)));
        assertTrue(factory.entered.await(10, TimeUnit.SECONDS), "the acquire never reached the store");
        Thread closer = new Thread(closing::close, "closer");
        closer.start();
        // close() waits for the acquire under way (parked on the monotonic clock), instead of closing the provider.
        await().atMost(Duration.ofSeconds(5)).until(() -> closer.getState() == Thread.State.TIMED_WAITING);
        factory.proceed.countDown();
        ExecutionException failed = assertThrows(ExecutionException.class, () -> acquire.get(10, TimeUnit.SECONDS),
                "an acquire whose client closed under it returned a lease");
        assertInstanceOf(IllegalStateException.class, failed.getCause(), failed.getCause().toString());
        closer.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(closer.isAlive(), "close() did not return");
        try (LockClient next = LockClient.open("mem://" + store)) {
            assertTrue(next.lock("job").tryAcquire().isPresent(), "the grant that landed during close stayed in the store");
        }
    }
}
