package io.locksmith.redis;

import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A real {@code redis-server} (or {@code redis-sentinel}) for tests, on a free loopback port, in a temp
 * directory, with persistence off ({@code --save "" --appendonly no}).
 */
final class RedisServer implements AutoCloseable {

    static final String INSTALL_HINT = "sudo apt-get install -y redis-server (Debian/Ubuntu)";

    private final ServerProcess process;

    private RedisServer(ServerProcess process) {
        this.process = process;
    }

    /** A primary. */
    static RedisServer start(String... extraArgs) {
        return startWith(null, extraArgs);
    }

    /** A replica of {@code primary}. */
    static RedisServer replicaOf(RedisServer primary) {
        return startWith(primary, "--replicaof", "127.0.0.1", Integer.toString(primary.port()));
    }

    private static RedisServer startWith(RedisServer primary, String... extraArgs) {
        int port = FreePorts.next();
        Path dir = tempDir("redis-" + port);
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()));
        command.addAll(List.of(extraArgs));
        return new RedisServer(ServerProcess.start((primary == null ? "redis-" : "redis-replica-") + port, command, dir,
                port, INSTALL_HINT));
    }

    /**
     * A Sentinel ({@code redis-server --sentinel}) monitoring {@code primary} as {@code mymaster}, quorum 1, declaring it down after 1 s of
     * silence so that failover tests stay short.
     */
    static RedisServer sentinel(RedisServer primary, String masterName) {
        int port = FreePorts.next();
        Path dir = tempDir("sentinel-" + port);
        Path config = dir.resolve("sentinel.conf");
        try {
            Files.writeString(config, String.join("\n",
                    "port " + port,
                    "bind 127.0.0.1",
                    "dir " + dir,
                    "sentinel monitor " + masterName + " 127.0.0.1 " + primary.port() + " 1",
                    "sentinel down-after-milliseconds " + masterName + " 1000",
                    "sentinel failover-timeout " + masterName + " 5000",
                    "sentinel parallel-syncs " + masterName + " 1",
                    ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // "redis-server FILE --sentinel" is what the redis-sentinel link runs; the link is a separate Debian package.
        return new RedisServer(ServerProcess.start("sentinel-" + port,
                List.of("redis-server", config.toString(), "--sentinel"), dir, port, INSTALL_HINT));
    }

    private static Path tempDir(String name) {
        try {
            return Files.createTempDirectory("locksmith-" + name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return process.port();
    }

    String address() {
        return "127.0.0.1:" + port();
    }

    ServerProcess process() {
        return process;
    }

    /** A fresh connection for test checks and tricks; close it. */
    Jedis jedis() {
        return new Jedis("127.0.0.1", port());
    }

    /** Makes the lock expire now, behind its holder's back, as a TTL running out would. */
    void expireNow(String lockName) {
        try (Jedis jedis = jedis()) {
            jedis.pexpire(RedisLockKeys.lockKey(lockName), 1);
        }
    }

    void kill() {
        process.kill();
    }

    @Override
    public void close() {
        process.close();
    }

    @Override
    public String toString() {
        return process.toString();
    }
}
