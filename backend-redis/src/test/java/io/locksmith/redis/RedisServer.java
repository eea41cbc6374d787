package io.locksmith.redis;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import io.locksmith.tck.server.TestCertificates;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import javax.net.ssl.SSLSocketFactory;

import java.util.List;


/**
 * A real {@code redis-server} (or {@code redis-sentinel}) for tests, on a free loopback port, in a temp
 * directory, with persistence off ({@code --save "" --appendonly no}).
 */
final class RedisServer implements AutoCloseable {

    private final ServerProcess process;
    /** The TLS sockets of {@link #jedis()}, trusting the server's authority; null for a server without TLS. */
    private final SSLSocketFactory tls;

    private RedisServer(ServerProcess process) {
        this(process, null);
    }

    private RedisServer(ServerProcess process, SSLSocketFactory tls) {
        this.process = process;
        this.tls = tls;
    }

    /** A primary that speaks TLS only, with the server certificate of {@code certificates}. */
    static RedisServer startWithTls(TestCertificates certificates, String... extraArgs) {
        return new RedisServer(StoreServers.redisWithTls(certificates, extraArgs), trusting(certificates));
    }

    /**
     * A primary that speaks TLS only and requires a client certificate from the authority of {@code certificates}
     * ({@code tls-auth-clients yes}); its test connections ({@link #jedis()}) send the one in {@code keyStore}.
     */
    static RedisServer startWithMutualTls(TestCertificates certificates, java.nio.file.Path keyStore) {
        return new RedisServer(StoreServers.redisWithTls(certificates, "--tls-auth-clients", "yes"),
                RedisTls.parse(io.locksmith.spi.LockUri.parse("rediss://127.0.0.1?trustStore=" + certificates.caCert()
                        + "&keyStore=" + keyStore), true).socketFactory());
    }

    /**
     * A client certificate of {@code certificates}' authority for {@code commonName}, with its key, in one PEM file
     * (what {@code keyStore=} takes), readable by its owner only.
     */
    static java.nio.file.Path clientKeyStore(TestCertificates certificates, String commonName) {
        TestCertificates.ClientCertificate client = certificates.clientCertificate(commonName);
        java.nio.file.Path pem = certificates.dir().resolve("client-" + commonName + ".pem");
        try {
            java.nio.file.Files.writeString(pem, java.nio.file.Files.readString(client.cert())
                    + java.nio.file.Files.readString(client.key()));
            java.nio.file.Files.setPosixFilePermissions(pem,
                    java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot write " + pem, e);
        }
        return pem;
    }

    /** A replica of {@code primary}, both TLS only, replicating over TLS. */
    static RedisServer replicaOfWithTls(RedisServer primary, TestCertificates certificates) {
        return startWithTls(certificates, "--replicaof", "127.0.0.1", Integer.toString(primary.port()));
    }

    /** A Sentinel as {@link #sentinel}, TLS only, to its clients and to the servers it watches. */
    static RedisServer sentinelWithTls(RedisServer primary, String masterName, TestCertificates certificates) {
        return new RedisServer(StoreServers.sentinelWithTls(primary.port(), masterName, certificates),
                trusting(certificates));
    }

    /** TLS sockets that trust the authority of {@code certificates} (and check host names). */
    static SSLSocketFactory trusting(TestCertificates certificates) {
        return RedisTls.parse(io.locksmith.spi.LockUri.parse("rediss://127.0.0.1?trustStore=" + certificates.caCert()),
                true).socketFactory();
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

    /** The {@code default} user's password once {@link #protectDefaultUser(String)} set one; null while it is open. */
    private volatile String adminPassword;

    /**
     * Gives the {@code default} user a password, so that a client without credentials is refused ({@code NOAUTH}); the
     * test's own connections ({@link #jedis()}) then log in with it.
     */
    void protectDefaultUser(String password) {
        try (Jedis jedis = jedis()) {
            jedis.aclSetUser("default", "resetpass", ">" + password);
        }
        adminPassword = password;
    }

    /** A fresh connection for test checks and tricks, as the {@code default} user; close it. */
    Jedis jedis() {
        Jedis jedis = connection();
        if (adminPassword != null) {
            jedis.auth(adminPassword);
        }
        return jedis;
    }

    /** A fresh connection without {@code AUTH}: over TLS, trusting the server's authority, on a server with TLS. */
    private Jedis connection() {
        return tls != null ? new Jedis(new HostAndPort("127.0.0.1", port()), DefaultJedisClientConfig.builder()
                .ssl(true).sslSocketFactory(tls).sslParameters(RedisTls.verifyingHostNames()).build())
                : new Jedis("127.0.0.1", port());
    }

    /**
     * A fresh connection (over TLS on a server with TLS) as {@code user} with {@code password}, or without credentials
     * when null.
     */
    Jedis jedisAs(String user, String password) {
        Jedis jedis = connection();
        if (password != null) {
            try {
                jedis.auth(user, password);
            } catch (RuntimeException refused) {
                jedis.close();
                throw refused;
            }
        }
        return jedis;
    }

    /** Makes the lock expire now, behind its holder's back, as a TTL running out would. */
    void expireNow(String lockName) {
        try (Jedis jedis = jedis()) {
            jedis.pexpire(RedisLockKeys.lockKey(lockName), 1);
        }
    }

    /** The owner id of the lock on this server, or null when it is free here. */
    String ownerOf(String lockName) {
        try (Jedis jedis = jedis()) {
            return jedis.hget(RedisLockKeys.lockKey(lockName), "owner");
        }
    }

    /**
     * As {@link #expireNow(String)}, but only if {@code ownerId} holds the lock on this server: on RedLock the
     * holding being dropped may be missing from a master where a newer holding already took the key.
     */
    void expireNowIfOwnedBy(String lockName, String ownerId) {
        try (Jedis jedis = jedis()) {
            jedis.eval("if redis.call('hget', KEYS[1], 'owner') == ARGV[1] then return redis.call('pexpire', KEYS[1], 1)"
                    + " end return 0", List.of(RedisLockKeys.lockKey(lockName)), List.of(ownerId));
        }
    }

    /**
     * Drops the lock of the holding that owns {@code lockName} on a majority of {@code servers} (RedLock), owner-checked
     * on each: a plain PEXPIRE on every master could hit a newer holding's key on a master the dropped holding never
     * had, and leave that newer holding without its majority (a double grant made by the test, not the store).
     */
    static void expireMajorityOwner(List<RedisServer> servers, String lockName) {
        java.util.Map<String, Long> votes = servers.stream().map(server -> server.ownerOf(lockName))
                .filter(java.util.Objects::nonNull)
                .collect(java.util.stream.Collectors.groupingBy(owner -> owner, java.util.stream.Collectors.counting()));
        votes.forEach((owner, count) -> {
            if (count > servers.size() / 2) {
                servers.forEach(server -> server.expireNowIfOwnedBy(lockName, owner));
            }
        });
    }

    void kill() {
        process.kill();
    }

    /** Freezes the server (SIGSTOP): it keeps its connections and answers nothing until {@link #resume()}. */
    void pause() {
        process.pause();
    }

    void resume() {
        process.resume();
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
