package io.locksmith.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.Stat;

import java.util.List;
import java.util.concurrent.TimeUnit;

/** A separate ZooKeeper session for tests to look at and tamper with lock nodes, as an operator would. */
final class ZooKeeperAdmin implements AutoCloseable {

    private final CuratorFramework curator;
    private final LockPaths paths;

    ZooKeeperAdmin(String connectString, String basePath) throws InterruptedException {
        this(connectString, basePath, null);
    }

    /** An admin session authenticated as {@code userAndPassword} ({@code user:password}, ZooKeeper digest), or not. */
    ZooKeeperAdmin(String connectString, String basePath, String userAndPassword) throws InterruptedException {
        this(connectString, basePath, userAndPassword, new ZKClientConfig());
    }

    /**
     * An admin session authenticated as {@code userAndPassword}, or not, with the ZooKeeper client configuration
     * {@code clientConfig}: a TLS server's admin connects with TLS, as its lock client does.
     */
    ZooKeeperAdmin(String connectString, String basePath, String userAndPassword, ZKClientConfig clientConfig)
            throws InterruptedException {
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder().connectString(connectString)
                .zkClientConfig(clientConfig)
                .sessionTimeoutMs(10_000).connectionTimeoutMs(5_000).retryPolicy(new RetryNTimes(20, 200));
        if (userAndPassword != null) {
            builder.authorization("digest", userAndPassword.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        curator = builder.build();
        curator.start();
        if (!curator.blockUntilConnected(10, TimeUnit.SECONDS)) {
            curator.close();
            throw new IllegalStateException("admin session cannot connect to " + connectString);
        }
        paths = new LockPaths(basePath);
    }

    /**
     * The lock nodes of a lock, in queue order; empty if its container is gone. Read after a {@code sync}: on an
     * ensemble the admin's member may lag the leader, and a stale queue names a holder that has gone (the TCK's R1.5
     * history then "dropped" a node that was no longer there, and the real holder kept the lock).
     */
    List<String> queue(String lockName) throws Exception {
        syncWithLeader(paths.lockPath(lockName));
        try {
            return LockPaths.queue(curator.getChildren().forPath(paths.lockPath(lockName)));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /** Creates an ephemeral sequential node for {@code ownerId}, as a create retried by Curator leaves behind. */
    String createOrphan(String lockName, String ownerId) throws Exception {
        return curator.create().creatingParentContainersIfNeeded()
                .withMode(org.apache.zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(paths.nodePrefix(lockName, ownerId), new byte[0]);
    }

    boolean containerExists(String lockName) throws Exception {
        return curator.checkExists().forPath(paths.lockPath(lockName)) != null;
    }

    /** The holder's node stat, or null if nobody holds it. */
    Stat holderStat(String lockName) throws Exception {
        List<String> queue = queue(lockName);
        return queue.isEmpty() ? null : curator.checkExists().forPath(paths.lockPath(lockName) + "/" + queue.get(0));
    }

    /** Deletes the holder's node behind its back; returns false if nobody held the lock. */
    boolean deleteHolderNode(String lockName) throws Exception {
        while (true) {
            List<String> queue = queue(lockName);
            if (queue.isEmpty()) {
                return false;
            }
            try {
                curator.delete().forPath(paths.lockPath(lockName) + "/" + queue.get(0));
                return true;
            } catch (KeeperException.NoNodeException e) {
                // released between the read and the delete: the next in the queue, if any, holds it now
            }
        }
    }

    /** Waits until the admin's member has caught up with the leader as of now. */
    private void syncWithLeader(String path) throws Exception {
        java.util.concurrent.CompletableFuture<Integer> done = new java.util.concurrent.CompletableFuture<>();
        curator.getZookeeperClient().getZooKeeper().sync(path, (rc, p, ctx) -> done.complete(rc), null);
        int rc = done.get(10, TimeUnit.SECONDS);
        if (rc != KeeperException.Code.OK.intValue() && rc != KeeperException.Code.NONODE.intValue()) {
            throw KeeperException.create(KeeperException.Code.get(rc), path);
        }
    }

    /**
     * The TCK's {@code expireBehindClientsBack}: deletes the holder's node, if the lock has a holder (the kit
     * also calls the hook on a free lock, to learn whether it is implemented).
     */
    void dropHolder(String lockName) {
        try {
            deleteHolderNode(lockName);
        } catch (Exception e) {
            throw new IllegalStateException("cannot delete the holder node of lock '" + lockName + "'", e);
        }
    }

    /**
     * The TCK's {@code endStoreSession}: ends the ZooKeeper session of {@code provider} on the server, as an
     * expiry does. A second handle joins the session with its id and password and closes it: the server then
     * closes the session, deletes its ephemeral nodes and drops the first handle's connection, whose reconnection
     * is answered "session expired". The second handle connects with the first's client configuration (TLS if it
     * has TLS). (ZooKeeper's {@code injectSessionExpiration()} only fakes the expiry in the
     * client, leaving the session and its nodes on the server until they time out.)
     */
    static void endSession(ZooKeeperLockProvider provider, String connectString) {
        org.apache.zookeeper.ZooKeeper session;
        try {
            session = provider.curator().getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new IllegalStateException("the provider has no ZooKeeper session to end", e);
        }
        java.util.concurrent.CountDownLatch joined = new java.util.concurrent.CountDownLatch(1);
        org.apache.zookeeper.ZooKeeper twin = null;
        try {
            twin = new org.apache.zookeeper.ZooKeeper(connectString, session.getSessionTimeout(), event -> {
                if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                    joined.countDown();
                }
            }, session.getSessionId(), session.getSessionPasswd(), false,
                    new org.apache.zookeeper.client.StaticHostProvider(
                            new org.apache.zookeeper.client.ConnectStringParser(connectString).getServerAddresses()),
                    session.getClientConfig());
            if (!joined.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("could not join ZooKeeper session 0x" + Long.toHexString(session.getSessionId()));
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot connect to " + connectString, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            if (twin != null) {
                try {
                    twin.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    @Override
    public void close() {
        curator.close();
    }
}
