package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;
import io.locksmith.tck.server.FreePorts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** URIs, credentials, time-outs and failures: clear errors, no leaked lock, never a password in a message. */
class RedisConfigurationTest {

    static RedisServer server;
    static RedisServer secured;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        secured = RedisServer.start("--requirepass", "s3cret-pw");
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        if (secured != null) {
            secured.close();
        }
    }

    /** No store failure may leave the caller's thread interrupted. */
    @org.junit.jupiter.api.AfterEach
    void threadIsNotInterrupted(TestInfo info) {
        assertFalse(Thread.interrupted(), info.getDisplayName() + " left the test thread interrupted");
    }

    @Test
    void anUnreachableServerFailsAtOpenNamingItButNotThePassword() {
        int port = FreePorts.next();
        for (String client : new String[] {"jedis", "redisson", "lettuce"}) {
            LockStoreException e = assertThrows(LockStoreException.class,
                    () -> LockClient.open("redis://:hunter2@127.0.0.1:" + port + "?timeout=500ms&client=" + client).close());
            assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
            assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
        }
    }

    @Test
    void nettyClientsOpenConnectionsWithinTheirOwnConnectTimeoutAndJedisWithinTheCommandTimeout() {
        RedisSettings redisson = RedisSettings.parse(io.locksmith.spi.LockUri.parse("redis://127.0.0.1:6379?client=redisson"));
        assertEquals(Duration.ofSeconds(2), redisson.timeout());
        assertEquals(Duration.ofSeconds(10), redisson.connectTimeout());
        RedisSettings longer = RedisSettings.parse(io.locksmith.spi.LockUri.parse("redis://127.0.0.1:6379?client=redisson&timeout=15s"));
        assertEquals(Duration.ofSeconds(15), longer.connectTimeout());
        RedisSettings jedis = RedisSettings.parse(io.locksmith.spi.LockUri.parse("redis://127.0.0.1:6379?timeout=700ms"));
        assertEquals(Duration.ofMillis(700), jedis.connectTimeout());
        RedisSettings explicit = RedisSettings.parse(io.locksmith.spi.LockUri.parse("redis://127.0.0.1:6379?client=redisson&connectTimeout=3s"));
        assertEquals(Duration.ofSeconds(3), explicit.connectTimeout());
        RedisSettings lettuce = RedisSettings.parse(io.locksmith.spi.LockUri.parse("redis://127.0.0.1:6379?timeout=700ms&client=lettuce"));
        assertEquals(Duration.ofSeconds(2), lettuce.connectTimeout());
    }

    @Test
    void aWrongPasswordIsAStoreErrorWithoutThePassword() {
        for (String client : new String[] {"jedis", "lettuce"}) {
            LockStoreException e = assertThrows(LockStoreException.class,
                    () -> LockClient.open("redis://:wrong-pw@" + secured.address() + "?client=" + client).close());
            assertFalse(e.getMessage().contains("wrong-pw"), e.getMessage());
            assertTrue(e.getMessage().contains(secured.address()), client + ": " + e.getMessage());
        }
    }

    @Test
    void thePasswordAndDatabaseComeFromTheUri(TestInfo info) {
        for (String client : new String[] {"jedis", "lettuce"}) {
            String name = RedisLockContract.unique(info) + ":" + client;
            try (LockClient locks = LockClient.open("redis://:s3cret-pw@" + secured.address() + "/3?timeout=1s&poolSize=2&client="
                    + client)) {
                assertFalse(locks.describe().contains("s3cret"), locks.describe());
                try (var lease = locks.lock(name).acquire(Duration.ofSeconds(2))) {
                    try (Jedis jedis = secured.jedis()) {
                        jedis.auth("s3cret-pw");
                        jedis.select(3);
                        assertTrue(jedis.exists(RedisLockKeys.lockKey(name)), client + ": the lock is not in database 3");
                    }
                }
            }
        }
    }

    @Test
    void badUrisAreRejectedNamingTheProblem() {
        String address = server.address();
        assertMessage("poolSize", () -> LockClient.open("redis://" + address + "?poolSize=0"));
        assertMessage("must be jedis, redisson or lettuce, was 'vertx'",
                () -> LockClient.open("redis://" + address + "?client=vertx"));
        assertMessage("unknown parameter", () -> LockClient.open("redis://" + address + "?tmeout=1s"));
        assertMessage("redlock://", () -> LockClient.open("redis://" + address + "," + address));
        assertMessage("at least 3", () -> LockClient.open("redlock://" + address + "," + address));
        assertMessage("master group", () -> LockClient.open("redis-sentinel://" + address));
        assertMessage("database", () -> LockClient.open("redis://" + address + "/zero"));
        assertMessage("waitReplicas", () -> LockClient.open("redis://" + address + "?waitTimeout=1s"));
        assertMessage("timeout", () -> LockClient.open("redis://" + address + "?timeout=0s"));
        assertMessage("redis-sentinel:// and redis-cluster:// only", () -> LockClient.open("redis://" + address + "?natMap=a:1=b:2"));
        assertMessage("database 0 only", () -> LockClient.open("redis-cluster://" + address + "/1"));
        assertMessage("client=redisson is not supported",
                () -> LockClient.open("redis-cluster://" + address + "?client=redisson"));
        assertMessage("announced-host:port=reachable-host:port",
                () -> LockClient.open("redis-sentinel://" + address + "/mymaster?natMap=a:1"));
        assertMessage("port in 1..65535",
                () -> LockClient.open("redis-sentinel://" + address + "/mymaster?natMap=a:1=b:70000"));
        assertMessage("maps a:1 twice",
                () -> LockClient.open("redis-sentinel://" + address + "/mymaster?natMap=a:1=b:2,a:1=c:3"));
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable open) {
        LockConfigurationException e = assertThrows(LockConfigurationException.class, open);
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
    }

    @Test
    void anAcquireThatNoReplicaAcknowledgesFailsAndLeavesNoLock(TestInfo info) {
        String name = RedisLockContract.unique(info);
        for (String client : new String[] {"jedis", "redisson", "lettuce"}) {
            try (LockClient locks = LockClient.open("redis://" + server.address() + "?waitReplicas=1&waitTimeout=50ms&client="
                    + client)) {
                LockStoreException e = assertThrows(LockStoreException.class, () -> locks.lock(name).tryAcquire());
                assertTrue(e.getMessage().contains("replica"), e.getMessage());
                assertTrue(locks.inspect(name).isEmpty(), client + ": an unacknowledged grant stayed behind");
            }
        }
    }

    @Test
    void aStoppedServerGivesAStoreErrorAndTheLockIsNotLeftBehind(TestInfo info) {
        for (String client : new String[] {"jedis", "lettuce"}) {
            aStoppedServerGivesAStoreErrorAndTheLockIsNotLeftBehind(RedisLockContract.unique(info) + ":" + client, client);
        }
    }

    private static void aStoppedServerGivesAStoreErrorAndTheLockIsNotLeftBehind(String name, String client) {
        try (RedisServer own = RedisServer.start();
             LockClient locks = LockClient.open("redis://" + own.address() + "?timeout=300ms&client=" + client)) {
            own.process().pause();
            try {
                LockStoreException e = assertThrows(LockStoreException.class, () -> locks.lock(name).tryAcquire());
                assertTrue(e.getMessage().contains(own.address()), e.getMessage());
            } finally {
                own.process().resume();
            }
            // The attempt may have reached the server before the time-out: the client released it.
            assertTrue(locks.inspect(name).isEmpty(), "an acquire that timed out left its lock behind");
            assertEquals(true, locks.lock(name).tryAcquire().map(lease -> {
                lease.close();
                return true;
            }).orElse(false));
        }
    }
}
