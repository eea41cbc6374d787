package io.locksmith.redis;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockStoreException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RedLock with nodes down, and fencing across different majorities. */
class RedLockFaultTest {

    private final List<RedisServer> servers = new ArrayList<>();

    @BeforeEach
    void start() {
        for (int i = 0; i < 3; i++) {
            servers.add(RedisServer.start());
        }
    }

    @AfterEach
    void stop() {
        servers.forEach(RedisServer::close);
    }

    private String uri() {
        return "redlock://" + servers.stream().map(RedisServer::address).collect(Collectors.joining(",")) + "?timeout=500ms";
    }

    @Test
    void aMinorityDownStillGrantsAndAMajorityDownIsAStoreError(TestInfo info) {
        String name = RedisLockContract.unique(info);
        try (LockClient locks = LockClient.open(uri())) {
            servers.get(0).kill();
            try (Lease lease = locks.lock(name).acquire(Duration.ofSeconds(2))) {
                assertTrue(lease.isHeld());
                assertTrue(locks.inspect(name).isPresent());
            }
            servers.get(1).kill();
            LockStoreException e = assertThrows(LockStoreException.class, () -> locks.lock(name).tryAcquire());
            assertTrue(e.getMessage().contains("majority"), e.getMessage());
            try (Jedis survivor = servers.get(2).jedis()) {
                assertFalse(survivor.exists(RedisLockKeys.lockKey(name)), "a failed RedLock acquire left its lock on a node");
            }
        }
    }

    @Test
    void aClientOpensWithAReachableQuorumAndUsesTheMissingMasterOnceItIsBack(TestInfo info) {
        String name = RedisLockContract.unique(info);
        servers.get(0).process().kill();
        try (LockClient locks = LockClient.open(uri())) {
            try (Lease lease = locks.lock(name).acquire(Duration.ofSeconds(2))) {
                assertTrue(lease.isHeld());
            }
            // The missing master comes back on its port; with another master down, the quorum needs it.
            servers.get(0).process().restart();
            servers.get(1).process().kill();
            try (Lease lease = locks.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(lease.isHeld());
                try (Jedis back = servers.get(0).jedis()) {
                    assertTrue(back.exists(RedisLockKeys.lockKey(name)), "the master that came back was not used");
                }
            }
        }
    }

    @Test
    void withoutAReachableQuorumOpeningIsAStoreErrorNamingTheMissingMasters() {
        servers.get(0).process().kill();
        servers.get(1).process().kill();
        LockStoreException e = assertThrows(LockStoreException.class, () -> LockClient.open(uri()).close());
        assertTrue(e.getMessage().contains("only 1 of 3 masters answer"), e.getMessage());
        assertTrue(e.getMessage().contains(servers.get(0).address()) && e.getMessage().contains(servers.get(1).address()),
                e.getMessage());
    }

    @Test
    void tokensIncreaseAcrossDifferentMajorities(TestInfo info) {
        String name = RedisLockContract.unique(info);
        try (LockClient locks = LockClient.open(uri())) {
            // Node 0's counter runs far ahead of the others (it took part in grants the others missed).
            long ahead;
            try (Jedis node0 = servers.get(0).jedis()) {
                ahead = Long.parseLong(node0.time().get(0)) * 1_000_000L * 2;
                node0.set(RedisLockKeys.fenceKey(name), Long.toString(ahead));
            }
            long first;
            try (Lease lease = locks.lock(name).acquire(Duration.ofSeconds(2))) {
                first = lease.fencingToken();
                assertEquals(ahead + 1, first, "the token is the highest counter of the granting majority");
            }
            // The next majority does not include node 0: it must still draw a higher token.
            servers.get(0).kill();
            try (Lease lease = locks.lock(name).acquire(Duration.ofSeconds(2))) {
                assertTrue(lease.fencingToken() > first, lease.fencingToken() + " after " + first);
            }
        }
    }

    @Test
    void theGrantsValidityIsBelowTheTtl(TestInfo info) {
        String name = RedisLockContract.unique(info);
        try (LockClient locks = LockClient.open(uri())) {
            RedLockProvider provider = (RedLockProvider) new RedisLockProviderFactory().create(
                    io.locksmith.spi.LockUri.parse(uri()), new io.locksmith.spi.ProviderContext("test", (g, r, c) -> { }));
            try (provider) {
                var owner = new io.locksmith.spi.Owner("test:1", new io.locksmith.HolderIdentity("test", "p", "t", 1, null));
                var grant = provider.tryAcquire(new io.locksmith.spi.AcquireRequest(name, owner, Duration.ofSeconds(1), false))
                        .orElseThrow();
                assertTrue(grant.validity().compareTo(Duration.ofMillis(990)) < 0, grant.validity().toString());
                assertTrue(provider.renew(grant, Duration.ofSeconds(1)));
                assertTrue(provider.release(grant));
                assertFalse(provider.release(grant));
            }
            assertTrue(locks.inspect(name).isEmpty());
        }
    }
}
