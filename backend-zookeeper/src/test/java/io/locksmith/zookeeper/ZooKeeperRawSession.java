package io.locksmith.zookeeper;

import io.locksmith.HolderIdentity;
import io.locksmith.tck.RawStoreSession;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The TCK's raw session (rule R2.6) on ZooKeeper: a plain ZooKeeper handle authenticated with a digest identity, or
 * with none, that attacks a lock's nodes directly. It learns the nodes' names from {@code oracle} (a session of the
 * application's identity), as an attacker who guessed or overheard them would, so that a refused list does not hide
 * a delete that would have worked.
 */
final class ZooKeeperRawSession implements RawStoreSession {

    private final ZooKeeper zooKeeper;
    private final ZooKeeperAdmin oracle;
    private final LockPaths paths;

    /** A session on {@code connectString} as {@code userAndPassword} (digest), or without credentials when null. */
    ZooKeeperRawSession(String connectString, String basePath, String userAndPassword, ZooKeeperAdmin oracle)
            throws Exception {
        this(connectString, basePath, userAndPassword, oracle, new ZKClientConfig());
    }

    /** As above, with the ZooKeeper client configuration {@code clientConfig} (TLS on a TLS server). */
    ZooKeeperRawSession(String connectString, String basePath, String userAndPassword, ZooKeeperAdmin oracle,
            ZKClientConfig clientConfig) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        zooKeeper = new ZooKeeper(connectString, 10_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, clientConfig);
        if (!connected.await(10, TimeUnit.SECONDS)) {
            zooKeeper.close();
            throw new IllegalStateException("no raw ZooKeeper session on " + connectString);
        }
        if (userAndPassword != null) {
            zooKeeper.addAuthInfo("digest", userAndPassword.getBytes(StandardCharsets.UTF_8));
        }
        this.oracle = oracle;
        this.paths = new LockPaths(basePath);
    }

    /** Deletes every node of the lock's queue, then its container (a delete of a non-empty or gone one is no refusal). */
    @Override
    public void delete(String lockName) throws Exception {
        for (String node : oracle.queue(lockName)) {
            zooKeeper.delete(paths.lockPath(lockName) + "/" + node, -1);
        }
        try {
            zooKeeper.delete(paths.lockPath(lockName), -1);
        } catch (KeeperException.NotEmptyException | KeeperException.NoNodeException e) {
            // a node queued meanwhile, or the container already reaped: the nodes were the lock
        }
    }

    /**
     * ZooKeeper keeps no expiry per lock: a lock node lives as long as its owner's session, which only that session
     * keeps alive. What another session can change is the node's data, the holder it names: rewrite it.
     */
    @Override
    public void extend(String lockName, Duration ttl) throws Exception {
        List<String> queue = oracle.queue(lockName);
        if (!queue.isEmpty()) {
            zooKeeper.setData(paths.lockPath(lockName) + "/" + queue.get(0), intruder().toBytes(), -1);
        }
    }

    /** Queues a node of its own behind the holder, the way a lock client would, with the data of a holder. */
    @Override
    public void takeOver(String lockName) throws Exception {
        LockNodeData data = intruder();
        zooKeeper.create(paths.nodePrefix(lockName, data.ownerId()), data.toBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL_SEQUENTIAL);
    }

    /** The holder node's data. */
    @Override
    public Optional<String> read(String lockName) throws Exception {
        List<String> queue = oracle.queue(lockName);
        if (queue.isEmpty()) {
            return Optional.empty();
        }
        byte[] data = zooKeeper.getData(paths.lockPath(lockName) + "/" + queue.get(0), false, null);
        return Optional.of(new String(data, StandardCharsets.UTF_8));
    }

    private static LockNodeData intruder() {
        String id = "intruder-" + UUID.randomUUID();
        return new LockNodeData(id, new HolderIdentity(id, "raw", "raw", 0, null));
    }

    @Override
    public void close() throws InterruptedException {
        zooKeeper.close();
    }
}
