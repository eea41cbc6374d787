package io.locksmith.it;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.SortedSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One real store server for the edge matrices, as a process that can be killed (-9) and frozen (SIGSTOP):
 * redis-server, etcd, and ZooKeeper's own {@code ZooKeeperServerMain} in a child JVM (so that it can be frozen
 * like the others). Lists every key the store holds, so a test can show that nothing was left behind.
 */
final class StoreUnderTest implements AutoCloseable {

    enum Kind { REDIS, ZOOKEEPER, ETCD }

    /** The command time-out every matrix URI sets, so the bounds are short. */
    static final String COMMAND_TIMEOUT = "1s";

    final Kind kind;
    final ServerProcess server;

    private StoreUnderTest(Kind kind, ServerProcess server) {
        this.kind = kind;
        this.server = server;
    }

    static StoreUnderTest start(Kind kind) {
        StoreUnderTest store = new StoreUnderTest(kind, switch (kind) {
            case REDIS -> StoreServers.redis();
            case ETCD -> StoreServers.etcd();
            case ZOOKEEPER -> zooKeeper();
        });
        try {
            // An open port is not a serving store (a ZooKeeper JVM accepts before it serves): list its keys once.
            store.keys();
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        return store;
    }

    /**
     * The keys of locks and queue entries: {@link #keys()} without Redis's fencing counters, which outlive their
     * locks by design (a token must never go back).
     */
    SortedSet<String> lockKeys() {
        SortedSet<String> keys = keys();
        keys.removeIf(key -> key.endsWith(":fence"));
        return keys;
    }

    /**
     * A ZooKeeper child JVM that serves sessions. Its client port opens before the server has loaded its database,
     * and in about one run in three of the full build (2 cores) a server started that way never began to serve:
     * the early connections died with "ZooKeeperServer not running" and no session came within 30 s. This is the
     * server's start-up, not what the matrices test, so a server that does not serve a session within 20 s is
     * replaced, once, by a fresh one on a new port; a second failure fails the test.
     */
    private static ServerProcess zooKeeper() {
        ServerProcess first = startZooKeeper();
        if (servesASession(first, Duration.ofSeconds(20))) {
            return first;
        }
        first.close();
        ServerProcess second = startZooKeeper();
        if (!servesASession(second, Duration.ofSeconds(30))) {
            second.close();
            throw new IllegalStateException("two ZooKeeper child JVMs in a row served no session (see their logs: "
                    + first + ", " + second + ")");
        }
        return second;
    }

    private static boolean servesASession(ServerProcess server, Duration within) {
        CountDownLatch connected = new CountDownLatch(1);
        try {
            ZooKeeper zk = new ZooKeeper("127.0.0.1:" + server.port(), 30_000, event -> {
                if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
            try {
                return connected.await(within.toMillis(), TimeUnit.MILLISECONDS);
            } finally {
                zk.close();
            }
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + server, e);
        }
    }

    private static ServerProcess startZooKeeper() {
        int port = FreePorts.next();
        Path dir = StoreServers.tempDir("zookeeper-" + port);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return ServerProcess.start("zookeeper-" + port, List.of(java, "-Xmx128m",
                "-Dzookeeper.admin.enableServer=false", "-Dzookeeper.4lw.commands.whitelist=ruok",
                "-cp", System.getProperty("java.class.path"), "org.apache.zookeeper.server.ZooKeeperServerMain",
                Integer.toString(port), dir.resolve("data").toString()), dir, port,
                "ZooKeeper runs from its Maven artifact; no install needed");
    }

    /** The store's URI with the given extra parameters (joined with {@code &}), and the matrix's command time-out. */
    String uri(String... parameters) {
        String query = String.join("&", parameters);
        String base = switch (kind) {
            case REDIS -> "redis://127.0.0.1:" + server.port() + "?timeout=" + COMMAND_TIMEOUT;
            case ETCD -> "etcd://127.0.0.1:" + server.port() + "?timeout=" + COMMAND_TIMEOUT;
            case ZOOKEEPER -> "zookeeper://127.0.0.1:" + server.port() + "/locksmith?connectionTimeout="
                    + COMMAND_TIMEOUT + "&sessionTimeout=4s";
        };
        return query.isEmpty() ? base : base + "&" + query;
    }

    /** Every key (Redis, etcd) or znode below the root other than ZooKeeper's own (ZooKeeper), sorted. */
    SortedSet<String> keys() {
        try {
            return switch (kind) {
                case REDIS -> {
                    try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
                        yield new TreeSet<>(jedis.keys("*"));
                    }
                }
                case ETCD -> {
                    try (Client client = Client.builder().endpoints("http://127.0.0.1:" + server.port()).build()) {
                        ByteSequence from = ByteSequence.from(new byte[]{0});
                        List<KeyValue> all = client.getKVClient().get(from, GetOption.builder()
                                .withRange(ByteSequence.from(new byte[]{0})).build()).get(10, TimeUnit.SECONDS).getKvs();
                        SortedSet<String> keys = new TreeSet<>();
                        for (KeyValue kv : all) {
                            keys.add(kv.getKey().toString(StandardCharsets.UTF_8));
                        }
                        yield keys;
                    }
                }
                case ZOOKEEPER -> zNodes();
            };
        } catch (Exception e) {
            throw new IllegalStateException("cannot list the keys of " + server, e);
        }
    }

    private SortedSet<String> zNodes() throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper("127.0.0.1:" + server.port(), 30_000, event -> {
            if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            if (!connected.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no connection to " + server);
            }
            SortedSet<String> nodes = new TreeSet<>();
            List<String> pending = new ArrayList<>(List.of("/"));
            while (!pending.isEmpty()) {
                String path = pending.remove(pending.size() - 1);
                List<String> children;
                try {
                    children = zk.getChildren(path, false);
                } catch (KeeperException.NoNodeException gone) {
                    continue;
                }
                for (String child : children) {
                    String full = path.equals("/") ? "/" + child : path + "/" + child;
                    if (full.equals("/zookeeper")) {
                        continue;
                    }
                    pending.add(full);
                    // Directories the provider keeps (base path, per-lock parents) are structure, not locks: a lock
                    // or queue entry is a leaf node that is ephemeral.
                    if (zk.exists(full, false).getEphemeralOwner() != 0) {
                        nodes.add(full);
                    }
                }
            }
            return nodes;
        } finally {
            zk.close();
        }
    }

    @Override
    public void close() {
        server.close();
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(java.util.Locale.ROOT);
    }
}
