package io.locksmith.redis;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Jedis and Redisson clients run the same protocol on the same keys, so they exclude each other. */
class JedisRedissonInteropTest {

    static RedisServer server;
    static RedissonClient redisson;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + server.address())
                .setConnectionMinimumIdleSize(1).setSubscriptionConnectionMinimumIdleSize(1);
        redisson = Redisson.create(config);
    }

    @AfterAll
    static void stop() {
        if (redisson != null) {
            redisson.shutdown();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aJedisHolderHandsTheLockToARedissonWaiter(TestInfo info) throws Exception {
        String name = RedisLockContract.unique(info);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (LockClient jedis = LockClient.open("redis://" + server.address());
             LockClient fromExistingClient = RedissonLocks.open(redisson)) {
            Lease held = jedis.lock(name).acquire(Duration.ofSeconds(2));
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
                try (Lease lease = fromExistingClient.lock(name).acquire(Duration.ofSeconds(10))) {
                    assertEquals(fromExistingClient.clientId(), jedis.inspect(name).orElseThrow().holder().clientId());
                    return lease.fencingToken();
                }
            }, pool);
            assertThrows(TimeoutException.class, () -> waiter.get(300, TimeUnit.MILLISECONDS),
                    "the Redisson client got a lock the Jedis client holds");
            assertEquals(jedis.clientId(), fromExistingClient.inspect(name).orElseThrow().holder().clientId());
            long jedisToken = held.fencingToken();
            held.close();
            assertTrue(waiter.get(10, TimeUnit.SECONDS) > jedisToken);
            assertTrue(jedis.inspect(name).isEmpty(), "the Redisson holder's release left the lock behind");
        } finally {
            pool.shutdownNow();
        }
        assertTrue(!redisson.isShutdown(), "closing the lock client must leave the application's RedissonClient open");
    }

    @Test
    void aRedissonHolderExcludesAJedisClient(TestInfo info) {
        String name = RedisLockContract.unique(info);
        try (LockClient viaUri = LockClient.open("redis://" + server.address() + "?client=redisson");
             LockClient jedis = LockClient.open("redis://" + server.address())) {
            try (Lease lease = viaUri.lock(name).acquire(Duration.ofSeconds(2))) {
                assertTrue(jedis.lock(name).tryAcquire().isEmpty());
                assertEquals(lease.fencingToken(), jedis.inspect(name).orElseThrow().fencingToken());
            }
            try (Lease lease = jedis.lock(name).tryAcquire().orElseThrow()) {
                assertTrue(lease.isHeld());
            }
        }
    }
}
