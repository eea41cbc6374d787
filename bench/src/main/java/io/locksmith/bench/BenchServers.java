package io.locksmith.bench;

import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import redis.clients.jedis.Jedis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The servers of one bench run, each in its own process on a free loopback port, so the bench JVM's CPU is
 * the clients' alone: redis-server (no persistence), etcd, and ZooKeeper's own {@code ZooKeeperServerMain}
 * started from the bench's class path in a second JVM. Each can count the requests it served, which is how
 * renewal traffic is measured.
 */
final class BenchServers implements AutoCloseable {

    private final Path workDir;
    private final Map<Store, ServerProcess> servers = new EnumMap<>(Store.class);
    private final List<String> problems = new ArrayList<>();
    private RedisRequestCounter redisCounter;
    /** Every process of the Sentinel group, primary first. */
    private final List<ServerProcess> sentinelGroup = new ArrayList<>();
    static final String SENTINEL_MASTER = "bench";
    /** One-way delay of the network clients cross ({@code --network-delay}); zero: loopback, no proxy. */
    private final Duration networkDelay;
    /** The delaying proxy in front of each server, when {@link #networkDelay} is not zero. */
    private final Map<Store, LatencyProxy> networks = new EnumMap<>(Store.class);

    BenchServers(Path workDir) {
        this(workDir, Duration.ZERO);
    }

    BenchServers(Path workDir, Duration networkDelay) {
        this.workDir = workDir;
        this.networkDelay = networkDelay;
    }

    /** Starts the server of {@code store}; a failure is recorded and the store skipped, not fatal. */
    boolean start(Store store) {
        try {
            ServerProcess server = switch (store) {
                case REDIS -> startRedis();
                case SENTINEL -> startSentinelGroup();
                case ETCD -> startEtcd();
                case ZOOKEEPER -> startZooKeeper();
                case POSTGRES -> io.locksmith.tck.server.StoreServers.postgres();
                case MEM -> null;
            };
            if (server != null) {
                servers.put(store, server);
                if (!networkDelay.isZero()) {
                    if (store == Store.SENTINEL) {
                        // The Sentinel hands out the primary's own address, so clients would bypass a proxy.
                        throw new IllegalStateException("--network-delay is not supported for the Sentinel group");
                    }
                    networks.put(store, LatencyProxy.start(server.port(), networkDelay));
                }
            }
            return true;
        } catch (RuntimeException e) {
            problems.add(store.title() + " server did not start: " + e.getMessage());
            return false;
        }
    }

    List<String> problems() {
        return problems;
    }

    /**
     * The port clients of {@code store} connect to: the server's, or with {@code --network-delay} the delaying proxy's
     * in front of it, so every contender and the round trips cross the same network.
     */
    int port(Store store) {
        LatencyProxy network = networks.get(store);
        return network != null ? network.port() : serverPort(store);
    }

    /** The delaying proxy in front of {@code store}'s server, or null on loopback. */
    LatencyProxy network(Store store) {
        return networks.get(store);
    }

    /** The server's own port: the bench's own questions (versions, counters, flushes) skip the delaying proxy. */
    int serverPort(Store store) {
        ServerProcess server = servers.get(store);
        if (server == null) {
            throw new IllegalStateException(store.title() + " server is not running");
        }
        return server.port();
    }

    private ServerProcess startRedis(String... extraArgs) {
        int port = FreePorts.next();
        List<String> args = new ArrayList<>(List.of("--maxclients", "10000"));
        args.addAll(List.of(extraArgs));
        return StoreServers.redis(port, workDir.resolve("redis-" + port), args.toArray(String[]::new));
    }

    /** Primary, two replicas in sync, and one Sentinel that knows them; returns the Sentinel (the client's port). */
    private ServerProcess startSentinelGroup() {
        ServerProcess primary = startRedis();
        sentinelGroup.add(primary);
        for (int i = 0; i < 2; i++) {
            sentinelGroup.add(startRedis("--replicaof", "127.0.0.1", Integer.toString(primary.port())));
        }
        awaitState("two replicas in sync", () -> {
            try (Jedis jedis = new Jedis("127.0.0.1", primary.port())) {
                String info = jedis.info("replication");
                return info.contains("slave0:") && info.contains("slave1:") && !info.contains("state=wait_bgsave")
                        && !info.contains("state=send_bulk");
            }
        });
        ServerProcess sentinel = StoreServers.sentinel(primary.port(), SENTINEL_MASTER);
        sentinelGroup.add(sentinel);
        awaitState("the Sentinel knowing both replicas", () -> {
            try (Jedis jedis = new Jedis("127.0.0.1", sentinel.port())) {
                return jedis.sentinelReplicas(SENTINEL_MASTER).size() == 2;
            }
        });
        return sentinel;
    }

    /** The primary of the Sentinel group. */
    int sentinelPrimaryPort() {
        try (Jedis jedis = new Jedis("127.0.0.1", port(Store.SENTINEL))) {
            return Integer.parseInt(jedis.sentinelGetMasterAddrByName(SENTINEL_MASTER).get(1));
        }
    }

    private static void awaitState(String what, java.util.function.BooleanSupplier state) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!state.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no " + what + " within 30 s");
            }
            try {
                Thread.sleep(100); // polling a server's state: there is no event to await
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }

    private ServerProcess startEtcd() {
        int port = FreePorts.next();
        int peerPort = FreePorts.next();
        // A single member: the test heartbeat and election settings have no peer to act on.
        return StoreServers.etcdMember("bench", port, peerPort, "bench=http://127.0.0.1:" + peerPort,
                workDir.resolve("etcd-" + port));
    }

    private ServerProcess startZooKeeper() {
        int port = FreePorts.next();
        Path dir = workDir.resolve("zookeeper-" + port);
        String java = ProcessHandle.current().info().command().orElse("java");
        ServerProcess server = ServerProcess.start("zookeeper-" + port, List.of(java, "-Xmx512m",
                        "-Dzookeeper.4lw.commands.whitelist=*", "-Dzookeeper.admin.enableServer=false",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-cp", absoluteClassPath(),
                        "org.apache.zookeeper.server.ZooKeeperServerMain", Integer.toString(port),
                        dir.resolve("data").toString()),
                dir, port, "the ZooKeeper server runs from the bench's own class path; check that 'java' runs");
        awaitServing(server);
        return server;
    }

    /** The bench's class path with absolute entries: the server runs in its own work directory. */
    private static String absoluteClassPath() {
        StringBuilder path = new StringBuilder();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (path.length() > 0) {
                path.append(java.io.File.pathSeparator);
            }
            path.append(Path.of(entry).toAbsolutePath());
        }
        return path.toString();
    }

    /**
     * The port a client of {@code store} connects to in {@code scenario}: the server's, except that Redis
     * clients in the renewal scenario go through the {@link RedisRequestCounter}.
     */
    int clientPort(Store store, Scenario scenario) {
        if (store == Store.REDIS && scenario == Scenario.RENEWAL) {
            synchronized (this) {
                if (redisCounter == null) {
                    redisCounter = RedisRequestCounter.start(port(Store.REDIS));
                }
                return redisCounter.port();
            }
        }
        return port(store);
    }

    /**
     * How many requests the store has received so far (a counter: compare two readings). Redis: commands
     * sent through the {@link RedisRequestCounter}; ZooKeeper: packets received ({@code mntr}); etcd: gRPC
     * messages received, stream messages included ({@code /metrics}).
     */
    long requestsServed(Store store) {
        return switch (store) {
            case REDIS -> {
                synchronized (this) {
                    yield redisCounter == null ? 0 : redisCounter.requests();
                }
            }
            case ZOOKEEPER -> Long.parseLong(fourLetterWord("mntr").getOrDefault("zk_packets_received", "0"));
            case ETCD -> etcdMessagesReceived();
            case POSTGRES -> postgresTransactions();
            case SENTINEL, MEM -> 0;
        };
    }

    /** The server's version, for the environment section of the results. */
    String version(Store store) {
        return switch (store) {
            case REDIS -> {
                try (Jedis jedis = new Jedis("127.0.0.1", serverPort(Store.REDIS))) {
                    yield "redis-server " + infoField(jedis.info("server"), "redis_version");
                }
            }
            case SENTINEL -> {
                try (Jedis jedis = new Jedis("127.0.0.1", sentinelPrimaryPort())) {
                    yield "redis-server " + infoField(jedis.info("server"), "redis_version") + ", primary + 2 replicas"
                            + " + 1 Sentinel";
                }
            }
            case ZOOKEEPER -> "ZooKeeper " + fourLetterWord("mntr").getOrDefault("zk_version", "?").split("[-,]")[0]
                    + " (separate JVM)";
            case ETCD -> "etcd " + http("/version").replaceAll(".*\"etcdserver\":\"([^\"]+)\".*", "$1").strip();
            case POSTGRES -> "PostgreSQL " + postgresQuery("SHOW server_version");
            case MEM -> "in-JVM";
        };
    }

    /**
     * PostgreSQL: transactions committed and rolled back in the database; every statement of Locksmith and of the
     * ShedLock-style lock is one autocommit transaction. The statistics reach the counter within about a second.
     */
    private long postgresTransactions() {
        return Long.parseLong(postgresQuery("SELECT xact_commit + xact_rollback FROM pg_stat_database"
                + " WHERE datname = 'postgres'"));
    }

    private String postgresQuery(String sql) {
        try (Connection connection = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:"
                + serverPort(Store.POSTGRES) + "/postgres", io.locksmith.tck.server.StoreServers.POSTGRES_USER, "");
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot ask PostgreSQL: " + sql, e);
        }
    }

    /** Clears the Redis keyspace between subjects, so one subject's leftovers cannot slow another. */
    void flushRedis(Store store) {
        try (Jedis jedis = new Jedis("127.0.0.1", store == Store.SENTINEL ? sentinelPrimaryPort() : serverPort(Store.REDIS))) {
            jedis.flushAll();
        }
    }

    static String infoField(String info, String field) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).strip();
            }
        }
        throw new IllegalStateException("INFO has no field " + field);
    }

    private long etcdMessagesReceived() {
        return sumMetric(http("/metrics"), "grpc_server_msg_received_total");
    }

    /** Sums every series of a Prometheus counter in a text exposition. */
    static long sumMetric(String exposition, String metric) {
        double sum = 0;
        for (String line : exposition.split("\n")) {
            if (line.startsWith(metric + "{") || line.startsWith(metric + " ")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return (long) sum;
    }

    private String http(String path) {
        try {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + serverPort(Store.ETCD) + path))
                    .timeout(Duration.ofSeconds(10)).build();
            return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read etcd " + path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading etcd " + path, e);
        }
    }

    private Map<String, String> fourLetterWord(String word) {
        Map<String, String> fields = new java.util.LinkedHashMap<>();
        try {
            for (String line : fourLetterWord(serverPort(Store.ZOOKEEPER), word, 10_000).split("\n")) {
                String[] parts = line.split("\t", 2);
                if (parts.length == 2) {
                    fields.put(parts[0], parts[1].strip());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot ask ZooKeeper '" + word + "'", e);
        }
        return fields;
    }

    private static String fourLetterWord(int port, String word, int timeoutMillis) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            StringBuilder text = new StringBuilder();
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                text.append(line).append('\n');
            }
            return text.toString();
        }
    }

    /** The port listens before the server serves: wait for {@code ruok} to be answered {@code imok}. */
    private static void awaitServing(ServerProcess server) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                if (fourLetterWord(server.port(), "ruok", 2_000).startsWith("imok")) {
                    return;
                }
            } catch (IOException e) {
                // not yet: try again
            }
            if (System.nanoTime() > deadline) {
                server.close();
                throw new IllegalStateException(server + " does not answer 'ruok' within 60 s:\n" + server.tail());
            }
            try {
                Thread.sleep(100); // polling a server's health: there is no event to await
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                server.close();
                throw new IllegalStateException("interrupted while waiting for " + server, e);
            }
        }
    }

    /** Stops every server and deletes their data. */
    @Override
    public void close() {
        if (redisCounter != null) {
            redisCounter.close();
        }
        networks.values().forEach(LatencyProxy::close);
        networks.clear();
        servers.values().forEach(ServerProcess::close);
        servers.clear();
        for (int i = sentinelGroup.size() - 1; i >= 0; i--) {
            sentinelGroup.get(i).close();
        }
        sentinelGroup.clear();
        try (var paths = java.nio.file.Files.walk(workDir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not delete " + workDir + ": " + e);
        }
    }
}
