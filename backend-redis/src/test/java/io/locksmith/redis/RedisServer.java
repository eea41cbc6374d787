package io.locksmith.redis;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import redis.clients.jedis.Jedis;


/**
 * A real {@code redis-server} (or {@code redis-sentinel}) for tests, on a free loopback port, in a temp
 * directory, with persistence off ({@code --save "" --appendonly no}).
 */
final class RedisServer implements AutoCloseable {

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
        // primary only names the role; the replica arguments are in extraArgs.
        return new RedisServer(StoreServers.redis(extraArgs));
    }

    /**
     * A Sentinel ({@code redis-server --sentinel}) monitoring {@code primary} as {@code masterName}, quorum 1,
     * declaring it down after 1 s of silence so that failover tests stay short.
     */
    static RedisServer sentinel(RedisServer primary, String masterName) {
        return new RedisServer(StoreServers.sentinel(primary.port(), masterName));
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
