package io.locksmith.zookeeper;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockStoreException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper with {@code user:password@} (digest authentication): every node the client makes is its identity's alone
 * ({@code CREATOR_ALL_ACL}), so another identity, or a client without one, can neither delete a held lock's node, nor
 * queue behind it, nor read who holds it; a wrong password or a base path of another identity fails the open, naming
 * the user and never the password.
 */
class ZooKeeperAccessControlTest {

    private static final String PASSWORD = "s3cret-app-pw";
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

    private static String base() {
        return "/acl-" + UUID.randomUUID();
    }

    private static String uri(String userInfo, String base) {
        return "zookeeper://" + (userInfo == null ? "" : userInfo + "@") + server.connectString() + base;
    }

    private static ZooKeeper rawSession(String userAndPassword) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zooKeeper = new ZooKeeper(server.connectString(), 10_000, event -> {
            if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertTrue(connected.await(10, TimeUnit.SECONDS), "no raw session");
        if (userAndPassword != null) {
            zooKeeper.addAuthInfo("digest", userAndPassword.getBytes(StandardCharsets.UTF_8));
        }
        return zooKeeper;
    }

    @Test
    void anotherIdentityCannotDeleteReadOrQueueOnAHeldLock() throws Exception {
        String base = base();
        String name = "stock:" + UUID.randomUUID();
        try (LockClient app = LockClient.open(uri("app:" + PASSWORD, base));
             Lease lease = app.lock(name).acquire(Duration.ofSeconds(10));
             ZooKeeperAdmin owner = new ZooKeeperAdmin(server.connectString(), base, "app:" + PASSWORD)) {
            List<String> queue = owner.queue(name);
            assertEquals(1, queue.size());
            String lockPath = new LockPaths(base).lockPath(name);
            String node = lockPath + "/" + queue.get(0);
            List<ACL> acl = rawSession("app:" + PASSWORD).getACL(node, null);
            assertEquals(1, acl.size());
            assertEquals("digest", acl.get(0).getId().getScheme());
            assertEquals(ZooDefs.Perms.ALL, acl.get(0).getPerms());
            for (String intruder : new String[] {null, "intruder:pw", "app:wrong-password"}) {
                ZooKeeper session = rawSession(intruder);
                try {
                    assertThrows(KeeperException.NoAuthException.class, () -> session.delete(node, -1),
                            intruder + " deleted a held lock's node");
                    assertThrows(KeeperException.NoAuthException.class, () -> session.getChildren(lockPath, false),
                            intruder + " listed a lock's queue");
                    assertThrows(KeeperException.NoAuthException.class, () -> session.getData(node, false, null),
                            intruder + " read the holder");
                    assertThrows(KeeperException.NoAuthException.class, () -> session.create(lockPath + "/x~",
                            new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, org.apache.zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL),
                            intruder + " queued behind a held lock");
                } finally {
                    session.close();
                }
            }
            assertTrue(lease.isHeld());
            assertEquals(queue, owner.queue(name), "the queue changed");
        }
    }

    @Test
    void twoClientsOfOneIdentityShareTheLocks() {
        String base = base();
        String name = "orders:" + UUID.randomUUID();
        try (LockClient first = LockClient.open(uri("app:" + PASSWORD, base));
             LockClient second = LockClient.open(uri("app:" + PASSWORD, base))) {
            long token;
            try (Lease lease = first.lock(name).acquire(Duration.ofSeconds(10))) {
                token = lease.fencingToken();
                assertFalse(second.lock(name).tryAcquire().isPresent(), "two holders of one identity");
                assertEquals(token, second.inspect(name).orElseThrow().fencingToken());
            }
            try (Lease next = second.lock(name).acquire(Duration.ofSeconds(10))) {
                assertTrue(next.fencingToken() > token);
            }
        }
    }

    @Test
    void aWrongPasswordOrAnotherIdentitysBasePathFailsTheOpenNamingTheUserNotThePassword() {
        String base = base();
        try (LockClient app = LockClient.open(uri("app:" + PASSWORD, base));
             Lease ignored = app.lock("made-the-base").acquire(Duration.ofSeconds(10))) {
            for (String userInfo : new String[] {"app:wrong-password", "intruder:other-pw", null}) {
                LockStoreException refused = assertThrows(LockStoreException.class,
                        () -> LockClient.open(uri(userInfo, base)).close(), userInfo + " opened");
                String message = refused.getMessage();
                assertTrue(message.contains(base), message);
                assertTrue(message.contains("check the URI's user and password"), message);
                assertFalse(message.contains(PASSWORD) || message.contains("wrong-password")
                        || message.contains("other-pw"), "a password in the message: " + message);
                if (userInfo != null) {
                    assertTrue(message.contains("user '" + userInfo.split(":")[0] + "'"), message);
                }
            }
        }
    }

    @Test
    void accessControlIsDeclaredOnlyWhereTheLocksAreTheIdentitysAlone() {
        String open = base();
        try (LockClient anonymous = LockClient.open(uri(null, open));
             Lease ignored = anonymous.lock("made-the-base").acquire(Duration.ofSeconds(10));
             LockClient onAnOpenBase = LockClient.open(uri("app:" + PASSWORD, open));
             LockClient guarded = LockClient.open(uri("app:" + PASSWORD, base()))) {
            assertFalse(anonymous.capabilities().contains(io.locksmith.Capability.ACCESS_CONTROL),
                    "a client without credentials makes nodes anyone may delete");
            assertFalse(onAnOpenBase.capabilities().contains(io.locksmith.Capability.ACCESS_CONTROL),
                    "on a base path anyone may write, another identity can make a lock's container first");
            assertTrue(guarded.capabilities().contains(io.locksmith.Capability.ACCESS_CONTROL));
        }
    }

    @Test
    void aUserWithoutAPasswordIsRefusedByName() {
        io.locksmith.LockConfigurationException refused = assertThrows(
                io.locksmith.LockConfigurationException.class, () -> LockClient.open(uri("app", base())));
        assertTrue(refused.getMessage().contains("no password"), refused.getMessage());
    }
}
