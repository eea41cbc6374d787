package io.locksmith.redis;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.tck.fault.TcpProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code natMap} through Lettuce: the Sentinel announces the primary's own address, and the client reaches it only
 * through the address the URI maps it to (a proxy in front of the primary), with commands and notifications alike.
 */
class LettuceSentinelNatMapTest {

    static SentinelGroup group;

    @BeforeAll
    static void startGroup() {
        group = new SentinelGroup();
    }

    @AfterAll
    static void stopGroup() {
        if (group != null) {
            group.close();
        }
    }

    @Test
    void theAnnouncedPrimaryIsReachedThroughItsMappedAddress(TestInfo info) {
        String name = RedisLockContract.unique(info);
        try (TcpProxy proxy = TcpProxy.start("127.0.0.1", group.primary.port());
             LockClient locks = LockClient.open(group.uri() + "?client=lettuce&natMap=127.0.0.1:" + group.primary.port()
                     + "=127.0.0.1:" + proxy.port())) {
            long before = proxy.forwardedChunks();
            try (Lease lease = locks.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(lease.isHeld());
            }
            assertTrue(proxy.forwardedChunks() > before, "the lock calls did not go through the mapped address");
            // Cut the mapped path: a client that went to the announced address directly would not notice.
            proxy.blackhole();
            assertTrue(failsWithStoreError(locks, name), "a call succeeded with the mapped address cut off");
        }
    }

    private static boolean failsWithStoreError(LockClient locks, String name) {
        try {
            locks.lock(name).tryAcquire().ifPresent(Lease::close);
            return false;
        } catch (io.locksmith.LockStoreException expected) {
            return true;
        }
    }
}
