package io.locksmith.safety;

import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Starting the store servers of the deployments, and small admin calls on them. */
final class Servers {

    static final String REDIS_HINT = "sudo apt-get install -y redis-server (Debian/Ubuntu)";
    static final String ETCD_HINT = "sudo apt-get install -y etcd-server (Debian/Ubuntu)";

    private Servers() {
    }

    /** A redis-server with persistence off on a free port; {@code extra} arguments are appended. */
    static ServerProcess redis(String... extra) {
        int port = FreePorts.next();
        Path dir = tempDir("redis-" + port);
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()));
        command.addAll(List.of(extra));
        return ServerProcess.start("redis-" + port, command, dir, port, REDIS_HINT);
    }

    /** A Sentinel watching {@code primaryPort} as {@code master}, quorum 1, declaring it down after 1 s. */
    static ServerProcess sentinel(int primaryPort, String master) {
        int port = FreePorts.next();
        Path dir = tempDir("sentinel-" + port);
        Path config = dir.resolve("sentinel.conf");
        try {
            Files.writeString(config, String.join("\n",
                    "port " + port,
                    "bind 127.0.0.1",
                    "dir " + dir,
                    "sentinel monitor " + master + " 127.0.0.1 " + primaryPort + " 1",
                    "sentinel down-after-milliseconds " + master + " 1000",
                    "sentinel failover-timeout " + master + " 5000",
                    "sentinel parallel-syncs " + master + " 1",
                    ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // The redis-sentinel link is a separate Debian package; "redis-server FILE --sentinel" is what it runs.
        return ServerProcess.start("sentinel-" + port, List.of("redis-server", config.toString(), "--sentinel"), dir,
                port, REDIS_HINT);
    }

    /** Sends one inline command to a Redis server and returns the raw reply (enough for INFO and SENTINEL). */
    static String redisCommand(int port, String... words) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            socket.setSoTimeout(2000);
            StringBuilder request = new StringBuilder("*" + words.length + "\r\n");
            for (String word : words) {
                request.append('$').append(word.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(word).append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return readReply(new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("redis command " + String.join(" ", words) + " on port " + port + " failed", e);
        }
    }

    private static String readReply(BufferedReader in) throws IOException {
        String line = in.readLine();
        if (line == null) {
            throw new IOException("connection closed");
        }
        switch (line.charAt(0)) {
            case '$' -> {
                int length = Integer.parseInt(line.substring(1));
                if (length < 0) {
                    return "";
                }
                char[] body = new char[length];
                int read = 0;
                while (read < length) {
                    int n = in.read(body, read, length - read);
                    if (n < 0) {
                        throw new IOException("connection closed");
                    }
                    read += n;
                }
                in.readLine();
                return new String(body);
            }
            case '*' -> {
                int count = Integer.parseInt(line.substring(1));
                StringBuilder all = new StringBuilder();
                for (int i = 0; i < count; i++) {
                    all.append(i == 0 ? "" : "\n").append(readReply(in));
                }
                return all.toString();
            }
            default -> {
                return line.substring(1);
            }
        }
    }

    /** Sends a ZooKeeper four-letter word ({@code srvr}) and returns the answer, or "" if the server is down. */
    static String zooKeeperWord(int port, String word) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            socket.setSoTimeout(2000);
            socket.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** An etcd member on free ports; {@code cluster} is the initial cluster string naming every member. */
    static ServerProcess etcd(String name, int clientPort, int peerPort, String cluster, Path dataDir) {
        String binary = ServerProcess.requireBinary("etcd", ETCD_HINT);
        // Small heartbeat and election timeout: the shortest lease etcd grants is then about one second, and a
        // killed leader is replaced within a few hundred milliseconds.
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
                "--heartbeat-interval", "50",
                "--election-timeout", "600",
                "--log-level", "warn");
        return ServerProcess.start("etcd-" + name + "-" + clientPort, command, dataDir.resolve("logs"), clientPort, ETCD_HINT);
    }

    static Path tempDir(String name) {
        try {
            return Files.createTempDirectory("locksmith-safety-" + name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Polls {@code condition} until it holds: for server states that no event announces (a Sentinel's
     * failover, a leader election).
     *
     * @throws IllegalStateException naming {@code what} if it does not hold within {@code bound}
     */
    static void awaitState(String what, Duration bound, BooleanSupplier condition) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException e) {
                // not there yet
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(what + " did not happen within " + bound);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(50); // polling a server's state: there is no event to await
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }

    /** Closes each, keeping the first failure and attaching the others. */
    static void closeAll(List<? extends AutoCloseable> resources) {
        RuntimeException failure = null;
        for (AutoCloseable resource : resources) {
            try {
                if (resource != null) {
                    resource.close();
                }
            } catch (Exception e) {
                RuntimeException wrapped = e instanceof RuntimeException r ? r : new IllegalStateException(e);
                if (failure == null) {
                    failure = wrapped;
                } else {
                    failure.addSuppressed(wrapped);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
