package io.locksmith.zookeeper;

import io.locksmith.LockInterruptedException;
import io.locksmith.LockStoreException;
import io.locksmith.spi.Registry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * Registry records on ZooKeeper, one node per key under {@code BASE~registry} (beside the lock nodes, never
 * among them: an encoded lock name never contains {@code ~}). The key is percent-encoded into one node
 * name, as lock names are.
 *
 * <ul>
 * <li>A record without TTL is a persistent node; it stays until removed.</li>
 * <li>A record with a TTL is an ephemeral node of the writer's session (it goes at the latest when the
 *     writer dies) whose data starts with the TTL. It counts as gone once the TTL has passed since its last
 *     put, by the server's clock: its {@code mtime} against the {@code mtime} of a write to
 *     {@code BASE~clock} made by {@link #list}, so client clocks play no part.</li>
 * <li>That write also makes {@link #list} linearizable: ZooKeeper serves a client's reads after its own
 *     earlier writes, and the write is ordered after every put that completed before the list began.</li>
 * </ul>
 */
final class ZooKeeperRegistry implements Registry {

    private static final long NO_TTL = -1;
    private static final int MAX_RACES = 10;

    private final CuratorFramework curator;
    private final String root;
    private final String clock;
    private final String store;
    private final LongSupplier sessionId;

    ZooKeeperRegistry(CuratorFramework curator, String basePath, String store, LongSupplier sessionId) {
        this.curator = curator;
        this.root = basePath + "~registry";
        this.clock = basePath + "~clock";
        this.store = store;
        this.sessionId = sessionId;
    }

    @Override
    public void put(String key, String value, Duration ttl) {
        Objects.requireNonNull(key, "key cannot be null");
        Objects.requireNonNull(value, "value cannot be null");
        String path = root + "/" + LockPaths.encodeSegment(key);
        CreateMode mode = ttl == null ? CreateMode.PERSISTENT : CreateMode.EPHEMERAL;
        byte[] data = ((ttl == null ? NO_TTL : ttl.toMillis()) + "\n" + value).getBytes(StandardCharsets.UTF_8);
        try {
            for (int race = 0; race < MAX_RACES; race++) {
                Stat stat = curator.checkExists().forPath(path);
                try {
                    if (stat == null) {
                        curator.create().creatingParentContainersIfNeeded().withMode(mode).forPath(path, data);
                    } else if (stat.getEphemeralOwner() == (ttl == null ? 0 : sessionId.getAsLong())) {
                        curator.setData().withVersion(stat.getVersion()).forPath(path, data);
                    } else {
                        // Another kind of node, or another session's: replace it in one step, so no reader
                        // ever finds the key missing.
                        CuratorOp delete = curator.transactionOp().delete().withVersion(stat.getVersion()).forPath(path);
                        CuratorOp create = curator.transactionOp().create().withMode(mode).forPath(path, data);
                        curator.transaction().forOperations(delete, create);
                    }
                    return;
                } catch (KeeperException.NodeExistsException | KeeperException.NoNodeException
                         | KeeperException.BadVersionException raced) {
                    // another writer got in between: look again
                }
            }
            throw new LockStoreException(store + ": registry record '" + key + "' kept changing under the put", null);
        } catch (Exception e) {
            throw failure("put registry record '" + key + "'", e);
        }
    }

    @Override
    public Map<String, String> list(String prefix) {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        try {
            long serverNow = touchClock();
            List<String> children;
            try {
                children = curator.getChildren().forPath(root);
            } catch (KeeperException.NoNodeException e) {
                return Map.of();
            }
            Map<String, String> records = new TreeMap<>();
            for (String child : children) {
                String key = LockPaths.decodeSegment(child);
                if (!key.startsWith(prefix)) {
                    continue;
                }
                Stat stat = new Stat();
                byte[] data;
                try {
                    data = curator.getData().storingStatIn(stat).forPath(root + "/" + child);
                } catch (KeeperException.NoNodeException e) {
                    continue;
                }
                String text = new String(data, StandardCharsets.UTF_8);
                int newline = text.indexOf('\n');
                long ttlMillis = Long.parseLong(text.substring(0, newline));
                if (ttlMillis == NO_TTL || serverNow - stat.getMtime() < ttlMillis) {
                    records.put(key, text.substring(newline + 1));
                }
            }
            return records;
        } catch (Exception e) {
            throw failure("list registry records under '" + prefix + "'", e);
        }
    }

    @Override
    public void remove(String key) {
        Objects.requireNonNull(key, "key cannot be null");
        try {
            curator.delete().forPath(root + "/" + LockPaths.encodeSegment(key));
        } catch (KeeperException.NoNodeException e) {
            // nothing to remove
        } catch (Exception e) {
            throw failure("remove registry record '" + key + "'", e);
        }
    }

    /** Writes the clock node and returns the server's time of that write. */
    private long touchClock() throws Exception {
        try {
            return curator.setData().forPath(clock, new byte[0]).getMtime();
        } catch (KeeperException.NoNodeException e) {
            try {
                curator.create().creatingParentContainersIfNeeded().forPath(clock, new byte[0]);
            } catch (KeeperException.NodeExistsException raced) {
                // created by another client meanwhile
            }
            return curator.setData().forPath(clock, new byte[0]).getMtime();
        }
    }

    private RuntimeException failure(String action, Exception e) {
        if (e instanceof LockStoreException known) {
            return known;
        }
        if (e instanceof InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return new LockInterruptedException(null, interrupted);
        }
        return new LockStoreException(store + " failed to " + action + ": " + e, e);
    }
}
