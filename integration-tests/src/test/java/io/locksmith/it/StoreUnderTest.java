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
import java.util.List;
import java.util.TreeSet;
import java.util.SortedSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One real store server for the edge matrices, as a process that can be killed (-9) and frozen (SIGSTOP):
 * redis-server, etcd, PostgreSQL, and a ZooKeeper server in a child JVM ({@link ZooKeeperChildProcess}, so that it
 * can be frozen like the others). Lists every key the store holds, so a test can show that nothing was left behind.
 */
final class StoreUnderTest implements AutoCloseable {

    enum Kind { REDIS, ZOOKEEPER, ETCD, POSTGRES }

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
            case POSTGRES -> StoreServers.postgres();
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
     * A ZooKeeper server in a child JVM ({@link ZooKeeperChildProcess}). {@link #start} lists its keys once, which
     * waits for a session: an open port is not yet a serving server.
     */
    private static ServerProcess zooKeeper() {
        int port = FreePorts.next();
        Path dir = StoreServers.tempDir("zookeeper-" + port);
        // The child's EmbeddedZooKeeper keeps its data in a temporary directory it cannot delete itself (it is
        // killed with -9): placed under this one, it goes when the server is closed.
        Path data = dir.resolve("data");
        try {
            java.nio.file.Files.createDirectories(data);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot create " + data, e);
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return ServerProcess.start("zookeeper-" + port, List.of(java, "-Xmx128m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Dzookeeper.admin.enableServer=false", "-Djava.io.tmpdir=" + data,
                "-cp", System.getProperty("java.class.path"), ZooKeeperChildProcess.class.getName(),
                Integer.toString(port)), dir, port, "ZooKeeper runs from its Maven artifact; no install needed")
                .deleteOnClose(data);
    }

    /** The store's URI with the given extra parameters (joined with {@code &}), and the matrix's command time-out. */
    String uri(String... parameters) {
        String query = String.join("&", parameters);
        String base = switch (kind) {
            case REDIS -> "redis://127.0.0.1:" + server.port() + "?timeout=" + COMMAND_TIMEOUT;
            case ETCD -> "etcd://127.0.0.1:" + server.port() + "?timeout=" + COMMAND_TIMEOUT;
            case ZOOKEEPER -> "zookeeper://127.0.0.1:" + server.port() + "/locksmith?connectionTimeout="
                    + COMMAND_TIMEOUT + "&sessionTimeout=4s";
            case POSTGRES -> "postgres://" + StoreServers.POSTGRES_USER + "@127.0.0.1:" + server.port()
                    + "/postgres?timeout=" + COMMAND_TIMEOUT;
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
                case POSTGRES -> lockRows();
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
                    // Directories the provider keeps (base path, per-lock parents) are structure, not locks: a lock
                    // or queue entry is a leaf node that is ephemeral. A node may go between the two reads: the
                    // server deletes an empty lock container within a second (EmbeddedZooKeeper's check interval).
                    org.apache.zookeeper.data.Stat stat = zk.exists(full, false);
                    if (stat == null) {
                        continue;
                    }
                    pending.add(full);
                    if (stat.getEphemeralOwner() != 0) {
                        nodes.add(full);
                    }
                }
            }
            return nodes;
        } finally {
            zk.close();
        }
    }

    /**
     * The names of the lock table's rows that hold a lock now (none before the first client created the table). A
     * free name keeps its row, by design (its next token is drawn under the row lock), like Redis's counters; a row
     * whose lease ran out is free by the database clock.
     */
    private SortedSet<String> lockRows() throws java.sql.SQLException {
        String url = "jdbc:postgresql://127.0.0.1:" + server.port() + "/postgres";
        try (java.sql.Connection connection = java.sql.DriverManager.getConnection(url, StoreServers.POSTGRES_USER, "");
             java.sql.Statement statement = connection.createStatement()) {
            SortedSet<String> names = new TreeSet<>();
            try (java.sql.ResultSet exists = statement.executeQuery("SELECT to_regclass('public.locksmith_locks')")) {
                exists.next();
                if (exists.getString(1) == null) {
                    return names;
                }
            }
            try (java.sql.ResultSet rows = statement.executeQuery("SELECT name FROM public.locksmith_locks WHERE expires_at > clock_timestamp()")) {
                while (rows.next()) {
                    names.add(rows.getString(1));
                }
            }
            return names;
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
