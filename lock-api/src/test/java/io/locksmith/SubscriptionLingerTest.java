package io.locksmith;

import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared client keeps a name's release subscription open for a moment after its last waiter left, for the
 * next wait: it must still wake that waiter, end on its own, and never outlive the client.
 */
@Timeout(120)
class SubscriptionLingerTest {

    /** {@code mem://} that counts the subscriptions the client opens and closes. */
    private static final class CountingSubscriptions implements LockProviderFactory {
        final String store = "linger-" + UUID.randomUUID();
        final AtomicInteger opened = new AtomicInteger();
        final AtomicInteger closed = new AtomicInteger();

        @Override
        public Set<String> schemes() {
            return Set.of("counting");
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            return new StubStores.OverMem(store, context, "counting://") {
                @Override
                public AutoCloseable subscribe(String name, Runnable onChange) {
                    AutoCloseable subscription = mem.subscribe(name, onChange);
                    opened.incrementAndGet();
                    AtomicInteger closes = new AtomicInteger();
                    return () -> {
                        subscription.close();
                        if (closes.incrementAndGet() == 1) {
                            closed.incrementAndGet();
                        } else {
                            throw new AssertionError("a subscription to '" + name + "' was closed twice");
                        }
                    };
                }
            };
        }

        int stillOpen() {
            return opened.get() - closed.get();
        }
    }

    /**
     * Waits on {@code waiterClient} while {@code holder} holds the lock, then releases it: the waiter must get it
     * within 30 s while its poll interval is 5 minutes, so through its subscription.
     */
    private static void waitThroughTheSubscription(LockClient holderClient, LockClient waiterClient, String name)
            throws Exception {
        Lease held = holderClient.lock(name).acquire(Duration.ZERO);
        CompletableFuture<Void> waited = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                waiterClient.lock(name).acquire(Duration.ofMinutes(1)).close();
                waited.complete(null);
            } catch (Throwable e) {
                waited.completeExceptionally(e);
            }
        }, "waiter-" + name);
        thread.setDaemon(true);
        thread.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> thread.getState() == Thread.State.TIMED_WAITING);
        held.close();
        waited.get(30, TimeUnit.SECONDS);
    }

    private static LockClient waiterClient(CountingSubscriptions factory) {
        return ProviderClientBuilder.create().uri("counting://").factory(factory)
                .maxPollInterval(Duration.ofMinutes(5)).build();
    }

    @Test
    void aWaiterIsWokenThroughALingeringOrNewSubscriptionAndTheLingerEndsOnItsOwn() throws Exception {
        CountingSubscriptions factory = new CountingSubscriptions();
        String name = "job:" + UUID.randomUUID();
        try (LockClient holder = LockClient.open("mem://" + factory.store);
             LockClient waiter = waiterClient(factory)) {
            for (int round = 0; round < 3; round++) {
                waitThroughTheSubscription(holder, waiter, name);
            }
            assertTrue(factory.opened.get() >= 1);
            await().atMost(Duration.ofSeconds(30)).until(() -> factory.stillOpen() == 0);
            // And after the linger ended, the next wait subscribes again.
            int before = factory.opened.get();
            waitThroughTheSubscription(holder, waiter, name);
            assertEquals(before + 1, factory.opened.get());
        }
    }

    @Test
    void noSubscriptionOutlivesTheClient() throws Exception {
        CountingSubscriptions factory = new CountingSubscriptions();
        try (LockClient holder = LockClient.open("mem://" + factory.store)) {
            LockClient waiter = waiterClient(factory);
            for (int i = 0; i < 5; i++) {
                waitThroughTheSubscription(holder, waiter, "job:" + i + ":" + UUID.randomUUID());
            }
            waiter.close();
            assertEquals(0, factory.stillOpen(), factory.stillOpen() + " of " + factory.opened.get()
                    + " release subscriptions were still open after the client's close returned");
        }
    }
}
