package io.locksmith.redis;

import io.locksmith.HolderIdentity;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Release notification: one subscriber connection per client for all names, restored after it drops. */
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

    private static LockProvider provider() {
        return new RedisLockProviderFactory().create(LockUri.parse("redis://" + server.address()),
                new ProviderContext("notification-test", (grant, reason, cause) -> { }));
    }

    private static Owner owner(String id) {
        return new Owner(id, new HolderIdentity("notification-test", "p", "t", 1, null));
    }

    @Test
    void manyNamesShareOneSubscriberConnectionAndReleasesAreDelivered(TestInfo info) throws Exception {
        String name = RedisLockContract.unique(info);
        try (LockProvider waiter = provider(); LockProvider holder = provider()) {
            AtomicInteger first = new AtomicInteger();
            AtomicInteger second = new AtomicInteger();
            AutoCloseable one = waiter.subscribe(name + ":a", first::incrementAndGet);
            AutoCloseable two = waiter.subscribe(name + ":b", second::incrementAndGet);
            assertEquals(1, subscriberConnections(), "names must share one subscriber connection");

            Grant grant = holder.tryAcquire(new AcquireRequest(name + ":a", owner("h:1"), Duration.ofSeconds(5), false))
                    .orElseThrow();
            holder.release(grant);
            await().atMost(Duration.ofSeconds(5)).until(() -> first.get() == 1);
            assertEquals(0, second.get());

            // The subscriber connection drops: every listener is told once, then the subscription is back.
            try (Jedis admin = server.jedis()) {
                admin.clientKill(new redis.clients.jedis.params.ClientKillParams().type(redis.clients.jedis.args.ClientType.PUBSUB));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> first.get() == 2 && second.get() == 1);
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribedChannels() >= 2);
            Grant again = holder.tryAcquire(new AcquireRequest(name + ":b", owner("h:2"), Duration.ofSeconds(5), false))
                    .orElseThrow();
            holder.release(again);
            await().atMost(Duration.ofSeconds(5)).until(() -> second.get() == 2);

            one.close();
            two.close();
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribedChannels() == 0);
        }
    }

    /** Regression (issue 13, R7.8): Redis publishes nothing when a key expires; the subscriber must still be told. */
    @Test
    void aSubscriberMadeAfterTheGrantIsToldWhenTheLockExpires(TestInfo info) throws Exception {
        String name = RedisLockContract.unique(info);
        try (LockProvider waiter = provider(); LockProvider holder = provider()) {
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
