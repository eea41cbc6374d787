package io.locksmith.tck.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The real store servers the tests of every module start (redis-server, Sentinel, etcd), in one place: on
 * free loopback ports, without persistence, in temporary directories, as {@link ServerProcess}es that can be
 * killed, paused and restarted. A missing binary fails with an install hint.
 */
public final class StoreServers {

    /** How to install redis-server (and Sentinel, which it runs with {@code --sentinel}). */
    public static final String REDIS_INSTALL_HINT = "sudo apt-get install -y redis-server (Debian/Ubuntu)";
    /** How to install etcd. */
    public static final String ETCD_INSTALL_HINT = "sudo apt-get install -y etcd-server (Debian/Ubuntu)";
    /** etcd heartbeat for tests: with it the shortest lease etcd grants is about one second. */
    public static final int ETCD_HEARTBEAT_MILLIS = 50;
    /** etcd election time-out for tests: a killed leader is replaced within a few hundred milliseconds. */
    public static final int ETCD_ELECTION_MILLIS = 600;

    private StoreServers() {
    }

    /** A redis-server with persistence off on a free port; {@code extraArgs} are appended (e.g. {@code --replicaof}). */
    public static ServerProcess redis(String... extraArgs) {
        int port = FreePorts.next();
        return redis(port, tempDir("redis-" + port), extraArgs);
    }

    /**
     * A redis-server with persistence off on {@code port}, its log in {@code dir} (the bench keeps servers on
     * tmpfs); {@code extraArgs} are appended.
     */
    public static ServerProcess redis(int port, Path dir, String... extraArgs) {
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()));
        command.addAll(List.of(extraArgs));
        return ServerProcess.start("redis-" + port, command, dir, port, REDIS_INSTALL_HINT);
    }

    /**
     * A Sentinel watching the primary at {@code primaryPort} as {@code master}, with a quorum of one, declaring
     * the primary down after one second of silence so failover tests stay short.
     */
    public static ServerProcess sentinel(int primaryPort, String master) {
        return sentinel(primaryPort, master, 1, Duration.ofSeconds(1));
    }

    /**
     * A Sentinel as {@link #sentinel(int, String)}, one of a group that needs {@code quorum} Sentinels to agree
     * that the primary is down (a failover also needs a majority of the group to elect a leader), declaring the
     * primary down after {@code downAfter} of silence ({@code down-after-milliseconds}).
     */
    public static ServerProcess sentinel(int primaryPort, String master, int quorum, Duration downAfter) {
        if (quorum < 1) {
            throw new IllegalArgumentException("quorum must be at least 1, was " + quorum);
        }
        if (downAfter.toMillis() < 1) {
            throw new IllegalArgumentException("downAfter must be at least 1 ms, was " + downAfter);
        }
        int port = FreePorts.next();
        Path dir = tempDir("sentinel-" + port);
        Path config = dir.resolve("sentinel.conf");
        try {
            Files.writeString(config, String.join("\n",
                    "port " + port,
                    "bind 127.0.0.1",
                    "dir " + dir,
                    "sentinel monitor " + master + " 127.0.0.1 " + primaryPort + " " + quorum,
                    "sentinel down-after-milliseconds " + master + " " + downAfter.toMillis(),
                    "sentinel failover-timeout " + master + " 5000",
                    "sentinel parallel-syncs " + master + " 1",
                    ""));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + config, e);
        }
        // The redis-sentinel link is a separate Debian package; "redis-server FILE --sentinel" is what it runs.
        return ServerProcess.start("sentinel-" + port, List.of("redis-server", config.toString(), "--sentinel"), dir,
                port, REDIS_INSTALL_HINT);
    }

    /**
     * One etcd member.
     *
     * @param name        the member's name
     * @param clientPort  its client port
     * @param peerPort    its peer port
     * @param cluster     the initial cluster naming every member: {@code n1=http://127.0.0.1:P1,...}
     * @param dataDir     a directory for the cluster's data and logs (the member uses a sub-directory)
     */
    public static ServerProcess etcdMember(String name, int clientPort, int peerPort, String cluster, Path dataDir) {
        String binary = ServerProcess.requireBinary("etcd", ETCD_INSTALL_HINT);
        List<String> command = List.of(binary,
                "--name", name,
                "--data-dir", dataDir.resolve(name).toString(),
                "--listen-client-urls", "http://127.0.0.1:" + clientPort,
                "--advertise-client-urls", "http://127.0.0.1:" + clientPort,
                "--listen-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-cluster", cluster,
                "--initial-cluster-state", "new",
                "--initial-cluster-token", dataDir.getFileName().toString(),
                "--heartbeat-interval", Integer.toString(ETCD_HEARTBEAT_MILLIS),
                "--election-timeout", Integer.toString(ETCD_ELECTION_MILLIS),
                // A member that was cut off and rejoins must not depose a healthy leader with the terms it
                // counted up alone (etcd 3.4 runs without pre-vote by default): see docs/ETCD.md.
                "--pre-vote=true",
                "--log-level", "warn");
        return ServerProcess.start("etcd-" + name + "-" + clientPort, command, dataDir.resolve("logs"), clientPort,
                ETCD_INSTALL_HINT);
    }

    /** A single-member etcd on free ports; its client URL is {@code http://127.0.0.1:<port()>}. */
    public static ServerProcess etcd() {
        int clientPort = FreePorts.next();
        int peerPort = FreePorts.next();
        return etcdMember("single", clientPort, peerPort, "single=http://127.0.0.1:" + peerPort,
                tempDir("etcd-" + clientPort));
    }

    /** A new temporary directory for a server. */
    public static Path tempDir(String name) {
        try {
            return Files.createTempDirectory("locksmith-" + name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory", e);
        }
    }
}
