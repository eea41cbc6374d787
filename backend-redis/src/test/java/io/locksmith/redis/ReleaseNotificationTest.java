package io.locksmith.redis;

import io.locksmith.HolderIdentity;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Release notification: one subscriber connection per client for all names, restored after it drops; through Jedis
 * and through Lettuce, whose subscribers keep one contract (Redisson notifies through its own topics).
 */
class ReleaseNotificationTest {

    static RedisServer server;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static LockProvider provider(String client) {
        return new RedisLockProviderFactory().create(LockUri.parse("redis://" + server.address() + "?client=" + client),
                new ProviderContext("notification-test", (grant, reason, cause) -> { }));
    }

    private static Owner owner(String id) {
        return new Owner(id, new HolderIdentity("notification-test", "p", "t", 1, null));
    }

    /** A waiting attempt of {@code ownerId} on a held {@code name}: it finds the lock taken and keeps a queue place. */
    private static void queueBehind(LockProvider waiter, String name, String ownerId) {
        assertTrue(waiter.tryAcquire(new AcquireRequest(name, owner(ownerId), Duration.ofSeconds(5), true)).isEmpty(),
                "the lock was free: nothing to queue behind");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jedis", "lettuce"})
    void manyNamesShareOneSubscriberConnectionAndReleasesAreDelivered(String client, TestInfo info) throws Exception {
        String name = RedisLockContract.unique(info) + ":" + client;
        try (LockProvider waiter = provider(client); LockProvider holder = provider(client)) {
            AtomicInteger first = new AtomicInteger();
            AtomicInteger second = new AtomicInteger();
            AutoCloseable one = waiter.subscribe(name + ":a", first::incrementAndGet);
            AutoCloseable two = waiter.subscribe(name + ":b", second::incrementAndGet);
            assertEquals(1, subscriberConnections(), "names must share one subscriber connection");

            // A release is announced when someone queued for it (every waiter of one node keeps a queue place before
            // it subscribes; a release nobody queued for publishes nothing): a waiting attempt queues first.
            Grant grant = holder.tryAcquire(new AcquireRequest(name + ":a", owner("h:1"), Duration.ofSeconds(5), false))
                    .orElseThrow();
            queueBehind(waiter, name + ":a", "w:1");
            holder.release(grant);
            await().atMost(Duration.ofSeconds(5)).until(() -> first.get() == 1);
            assertEquals(0, second.get());

            // The subscriber connection drops: every listener is told when it drops and again when the server
            // confirms its channel on the new connection (releases published in between reached nobody).
            try (Jedis admin = server.jedis()) {
                admin.clientKill(new redis.clients.jedis.params.ClientKillParams().type(redis.clients.jedis.args.ClientType.PUBSUB));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> first.get() == 3 && second.get() == 2);
            assertTrue(subscribedChannels() >= 2, "the channels were confirmed, so the server has them");
            Grant again = holder.tryAcquire(new AcquireRequest(name + ":b", owner("h:2"), Duration.ofSeconds(5), false))
                    .orElseThrow();
            queueBehind(waiter, name + ":b", "w:2");
            holder.release(again);
            await().atMost(Duration.ofSeconds(5)).until(() -> second.get() == 3);
            assertEquals(3, first.get(), "a release of another name told this one");

            one.close();
            two.close();
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribedChannels() == 0);
        }
    }

    /** Regression (issue 13, R7.8): Redis publishes nothing when a key expires; the subscriber must still be told. */
    @ParameterizedTest
    @ValueSource(strings = {"jedis", "lettuce"})
    void aSubscriberMadeAfterTheGrantIsToldWhenTheLockExpires(String client, TestInfo info) throws Exception {
        String name = RedisLockContract.unique(info) + ":" + client;
        try (LockProvider waiter = provider(client); LockProvider holder = provider(client)) {
            long grantedAt = System.nanoTime();
            holder.tryAcquire(new AcquireRequest(name, owner("h:3"), Duration.ofMillis(400), false)).orElseThrow();
            AtomicInteger told = new AtomicInteger();
            AtomicLong toldAt = new AtomicLong();
            try (AutoCloseable subscription = waiter.subscribe(name, () -> {
                toldAt.compareAndSet(0, System.nanoTime());
                told.incrementAndGet();
            })) {
                await().atMost(Duration.ofSeconds(3)).until(() -> told.get() >= 1);
                long afterGrant = TimeUnit.NANOSECONDS.toMillis(toldAt.get() - grantedAt);
                assertTrue(afterGrant >= 390, "told " + afterGrant + " ms after a grant with a TTL of 400 ms: too early");
            }
        }
    }

    /**
     * A subscription the server confirms only after {@code subscribe} gave up waiting for it: a release published
     * in between reaches nobody, so the listener is called when the confirmation comes (without it, a waiter that
     * tries again only when called back waits for its next poll, or for ever in the TCK's R7.10).
     */
    @ParameterizedTest
    @ValueSource(strings = {"jedis", "lettuce"})
    void aSubscriptionConfirmedLateCallsItsListenerWhenItIsConfirmed(String client, TestInfo info) throws Exception {
        String name = RedisLockContract.unique(info) + ":" + client;
        try (TcpProxy slowNetwork = TcpProxy.start("127.0.0.1", server.port());
             LockProvider waiter = new RedisLockProviderFactory().create(
                     LockUri.parse("redis://127.0.0.1:" + slowNetwork.port() + "?client=" + client),
                     new ProviderContext("notification-test", (grant, reason, cause) -> { }));
             LockProvider holder = provider(client)) {
            try (AutoCloseable warmUp = waiter.subscribe(name + ":warm-up", () -> { })) {
                AtomicInteger told = new AtomicInteger();
                // Longer than subscribe's wait for the confirmation (2 s): the SUBSCRIBE reaches the server after
                // the release below was published.
                slowNetwork.delay(Duration.ofSeconds(3));
                try (AutoCloseable subscription = waiter.subscribe(name, told::incrementAndGet)) {
                    Grant grant = holder.tryAcquire(new AcquireRequest(name, owner("h:4"), Duration.ofSeconds(5),
                            false)).orElseThrow();
                    holder.release(grant);
                    assertEquals(0, told.get(), "the release was published before the server had the subscription");
                    await("the listener, once the server confirmed the subscription").atMost(Duration.ofSeconds(15))
                            .until(() -> told.get() >= 1);
                    slowNetwork.heal();
                }
            }
        }
    }

    /** Client connections in subscriber mode. */
    private static long subscriberConnections() {
        try (Jedis admin = server.jedis()) {
            return admin.clientList().lines().filter(line -> !line.contains(" sub=0 ")).count();
        }
    }

    /** Lock release channels subscribed on the server (the keep-open channel is not counted). */
    private static long subscribedChannels() {
        try (Jedis admin = server.jedis()) {
            return admin.pubsubChannels("locksmith:{*").size();
        }
    }
}
