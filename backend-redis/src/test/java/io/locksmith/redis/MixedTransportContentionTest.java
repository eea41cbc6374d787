package io.locksmith.redis;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Jedis, Redisson and Lettuce clients contending for one lock: never two inside, tokens in grant order. */
class MixedTransportContentionTest {

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
    void jedisRedissonAndLettuceClientsExcludeEachOtherUnderContention(TestInfo info) throws Exception {
        String name = RedisLockContract.unique(info);
        int rounds = 15;
        AtomicInteger inside = new AtomicInteger();
        List<String> violations = new ArrayList<>();
        long[] lastToken = {Long.MIN_VALUE};
        int[] entries = {0};
        List<LockClient> clients = List.of(
                LockClient.open("redis://" + server.address()),
                LockClient.open("redis://" + server.address()),
                LockClient.open("redis://" + server.address() + "?client=redisson"),
                LockClient.open("redis://" + server.address() + "?client=redisson"),
                LockClient.open("redis://" + server.address() + "?client=lettuce"),
                LockClient.open("redis://" + server.address() + "?client=lettuce"));
        ExecutorService pool = Executors.newFixedThreadPool(clients.size());
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (LockClient client : clients) {
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(20))) {
                            if (inside.incrementAndGet() != 1) {
                                synchronized (violations) {
                                    violations.add("two holders at once, token " + lease.fencingToken());
                                }
                            }
                            synchronized (violations) {
                                if (lease.fencingToken() <= lastToken[0]) {
                                    violations.add("token " + lease.fencingToken() + " after " + lastToken[0]);
                                }
                                lastToken[0] = lease.fencingToken();
                                entries[0]++;
                            }
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            clients.forEach(LockClient::close);
        }
        assertTrue(violations.isEmpty(), violations.toString());
        assertEquals(rounds * clients.size(), entries[0]);
    }
}
