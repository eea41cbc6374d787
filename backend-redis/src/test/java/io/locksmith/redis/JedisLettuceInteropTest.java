package io.locksmith.redis;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Jedis and Lettuce clients run the same protocol on the same keys, so they exclude each other on one name. */
class JedisLettuceInteropTest {

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

    @Test
    void aJedisHolderHandsTheLockToALettuceWaiter(TestInfo info) throws Exception {
        String name = RedisLockContract.unique(info);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (LockClient jedis = LockClient.open("redis://" + server.address());
             LockClient lettuce = LockClient.open("redis://" + server.address() + "?client=lettuce")) {
            Lease held = jedis.lock(name).acquire(Duration.ofSeconds(2));
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
                try (Lease lease = lettuce.lock(name).acquire(Duration.ofSeconds(10))) {
                    assertEquals(lettuce.clientId(), jedis.inspect(name).orElseThrow().holder().clientId());
                    return lease.fencingToken();
                }
            }, pool);
            assertThrows(TimeoutException.class, () -> waiter.get(300, TimeUnit.MILLISECONDS),
                    "the Lettuce client got a lock the Jedis client holds");
            assertEquals(jedis.clientId(), lettuce.inspect(name).orElseThrow().holder().clientId());
            long jedisToken = held.fencingToken();
            held.close();
            assertTrue(waiter.get(10, TimeUnit.SECONDS) > jedisToken);
            assertTrue(jedis.inspect(name).isEmpty(), "the Lettuce holder's release left the lock behind");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aLettuceHolderExcludesAJedisClient(TestInfo info) {
        String name = RedisLockContract.unique(info);
        try (LockClient lettuce = LockClient.open("redis://" + server.address() + "?client=lettuce");
             LockClient jedis = LockClient.open("redis://" + server.address())) {
            try (Lease lease = lettuce.lock(name).acquire(Duration.ofSeconds(2))) {
                assertTrue(jedis.lock(name).tryAcquire().isEmpty());
                assertEquals(lease.fencingToken(), jedis.inspect(name).orElseThrow().fencingToken());
            }
            try (Lease lease = jedis.lock(name).tryAcquire().orElseThrow()) {
                assertTrue(lease.isHeld());
                assertTrue(lettuce.lock(name).tryAcquire().isEmpty(), "the Lettuce client got a lock the Jedis client holds");
            }
        }
    }
}
