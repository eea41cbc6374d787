package io.locksmith.zookeeper;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockStoreException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a digest password change does on ZooKeeper, as docs/ZOOKEEPER.md ("Changing the password") describes it: a new
 * password is a new identity, not a new secret for the same one. With the new identity added to the base path's ACL
 * (the first step of the documented change), a client of the new password opens, and locks names whose lock node it
 * makes; on a name whose lock node a client of the old password made it is refused (a clear error naming the user,
 * never a second grant) until that node is gone. The old client's held lock stays held and is released normally.
 */
class ZooKeeperPasswordChangeTest {

    private static final String OLD = "app:Old-pw-4c1";
    private static final String NEW = "app:New-pw-9e7";
    private static EmbeddedZooKeeper server;

    @BeforeAll
    static void startServer() {
        server = EmbeddedZooKeeper.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private static String uri(String userInfo, String base) {
        return "zookeeper://" + userInfo + "@" + server.connectString() + base + "?connectionTimeout=3s";
    }

    private static ZooKeeper session(String userAndPassword) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zooKeeper = new ZooKeeper(server.connectString(), 10_000, event -> {
            if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertTrue(connected.await(10, TimeUnit.SECONDS), "no session");
        zooKeeper.addAuthInfo("digest", userAndPassword.getBytes(StandardCharsets.UTF_8));
        return zooKeeper;
    }

    private static ACL all(String userAndPassword) throws Exception {
        return new ACL(ZooDefs.Perms.ALL, new Id("digest", DigestAuthenticationProvider.generateDigest(userAndPassword)));
    }

    @Test
    void newPasswordIsAnotherIdentityThatCannotTakeTheOldIdentitysLockNodesUntilTheyAreGone() throws Exception {
        String base = "/rotation-" + UUID.randomUUID();
        String held = "held-" + UUID.randomUUID();
        try (LockClient old = LockClient.open(uri(OLD, base))) {
            Lease lease = old.lock(held).acquire(Duration.ofSeconds(10));
            // Before the base path names it, the new identity cannot even open.
            assertThrows(LockStoreException.class, () -> LockClient.open(uri(NEW, base)).close());
            // Step 1 of the documented change: the base path's ACL names both identities.
            ZooKeeper admin = session(OLD);
            try {
                admin.setACL(base, new java.util.ArrayList<>(List.of(all(OLD), all(NEW))), -1);
            } finally {
                admin.close();
            }
            try (LockClient renewed = LockClient.open(uri(NEW, base))) {
                LockStoreException refused = assertThrows(LockStoreException.class,
                        () -> renewed.lock(held).acquire(Duration.ofSeconds(2)));
                String message = refused.getMessage();
                assertTrue(message.contains("user 'app'"), message);
                assertFalse(message.contains("Old-pw") || message.contains("New-pw"), message);
                assertTrue(lease.isHeld(), "the old identity's holding is untouched");
                // A name whose lock node the new identity makes is its own: the old client cannot queue on it.
                String fresh = "fresh-" + UUID.randomUUID();
                try (Lease mine = renewed.lock(fresh).acquire(Duration.ofSeconds(5))) {
                    assertTrue(mine.isHeld());
                    assertThrows(LockStoreException.class, () -> old.lock(fresh).tryAcquire());
                }
                lease.close();
                // The released name's lock node (a container) is swept once empty; the new identity then makes its own.
                await("the new identity takes the name once the old lock node is gone").atMost(Duration.ofSeconds(20))
                        .ignoreExceptions().until(() -> {
                            try (Lease taken = renewed.lock(held).acquire(Duration.ofSeconds(1))) {
                                return taken.isHeld();
                            }
                        });
            }
        }
    }
}
