package io.locksmith.examples.memcached;

import io.locksmith.HolderIdentity;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the kit cannot read on this store: the item's own expiry, the backstop for a dead holder. The provider reports
 * no time to live ({@code inspect}), since the shared client times the lease, so the kit's R6.7 (a renewal sets the
 * TTL, it does not add to it) is skipped here; this checks the same on the item.
 */
class MemcachedItemExpiryTest {

    static ServerProcess server;

    @BeforeAll
    static void startServer() {
        server = StoreServers.memcached();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void renewalsSetTheItemsExpiryTheyDoNotAddToIt() {
        String name = "expiry-" + UUID.randomUUID();
        Duration ttl = Duration.ofSeconds(1);
        try (LockProvider provider = new MemcachedLockProviderFactory().create(
                LockUri.parse("memcached://127.0.0.1:" + server.port()),
                new ProviderContext("expiry-test-" + UUID.randomUUID(), (grant, reason, cause) -> { }))) {
            Owner owner = new Owner("expiry-test:1", new HolderIdentity("expiry-test", "test", "main", 1, null));
            Grant grant = provider.tryAcquire(new AcquireRequest(name, owner, ttl, false)).orElseThrow();
            for (int i = 0; i < 20; i++) {
                assertTrue(provider.renew(grant, ttl), "renewal " + i + " of a held lock answered false");
            }
            long left = secondsLeft(name);
            int expiry = MemcachedLockProvider.expirySeconds(ttl);
            assertTrue(left > 0 && left <= expiry, "after 20 renewals of a " + ttl + " lease the item has " + left
                    + " s to live; each renewal sets it to " + expiry + " s");
            assertTrue(provider.release(grant));
        }
    }

    private static long secondsLeft(String name) {
        try (MemcachedConnections admin = new MemcachedConnections("127.0.0.1", server.port(), Duration.ofSeconds(5))) {
            MemcachedConnections.Reply reply = admin.call(name, "mg " + MemcachedLockProvider.keyOf(name) + " t", null);
            return reply.flag('t');
        }
    }
}
