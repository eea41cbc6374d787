package io.locksmith.redis;

import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.awaitility.Awaitility.await;

/**
 * A primary, one replica and one Sentinel watching them as {@code mymaster} (quorum 1, down after 1 s),
 * started in that order, ready once the Sentinel knows the replica and the replica is in sync.
 */
final class SentinelGroup implements AutoCloseable {

    static final String MASTER = "mymaster";

    final RedisServer primary;
    final RedisServer replica;
    final RedisServer sentinel;

    SentinelGroup() {
        this(null);
    }

    /**
     * As {@link #SentinelGroup()}, every server TLS only with the certificates of {@code certificates} (replication
     * and the Sentinel's links to the servers too); without TLS if null.
     */
    SentinelGroup(io.locksmith.tck.server.TestCertificates certificates) {
        primary = certificates == null ? RedisServer.start() : RedisServer.startWithTls(certificates);
        RedisServer startedReplica = null;
        RedisServer startedSentinel = null;
        try {
            startedReplica = certificates == null ? RedisServer.replicaOf(primary)
                    : RedisServer.replicaOfWithTls(primary, certificates);
            RedisServer replicaForWait = startedReplica;
            await().atMost(Duration.ofSeconds(15)).until(() -> inSync(replicaForWait));
            startedSentinel = certificates == null ? RedisServer.sentinel(primary, MASTER)
                    : RedisServer.sentinelWithTls(primary, MASTER, certificates);
            RedisServer sentinelForWait = startedSentinel;
            await().atMost(Duration.ofSeconds(20)).until(() -> knowsReplica(sentinelForWait));
        } catch (RuntimeException | Error e) {
            if (startedSentinel != null) {
                startedSentinel.close();
            }
            if (startedReplica != null) {
                startedReplica.close();
            }
            primary.close();
            throw e;
        }
        replica = startedReplica;
        sentinel = startedSentinel;
    }

    private static boolean inSync(RedisServer replica) {
        try (Jedis jedis = replica.jedis()) {
            return jedis.info("replication").contains("master_link_status:up");
        }
    }

    private static boolean knowsReplica(RedisServer sentinel) {
        try (Jedis jedis = sentinel.jedis()) {
            List<Map<String, String>> replicas = jedis.sentinelReplicas(MASTER);
            return !replicas.isEmpty() && !replicas.get(0).getOrDefault("flags", "").contains("down");
        }
    }

    /** The URI of the Sentinel deployment. */
    String uri() {
        return "redis-sentinel://" + sentinel.address() + "/" + MASTER;
    }

    /** The port the Sentinel names as the primary now. */
    int currentPrimaryPort() {
        try (Jedis jedis = sentinel.jedis()) {
            return Integer.parseInt(jedis.sentinelGetMasterAddrByName(MASTER).get(1));
        }
    }

    /** The server that is the primary now. */
    RedisServer currentPrimary() {
        return currentPrimaryPort() == replica.port() ? replica : primary;
    }

    /** Kills the primary and waits until the Sentinel promoted the replica. */
    void killPrimaryAndAwaitFailover() {
        primary.kill();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> currentPrimaryPort() == replica.port() && isPrimary(replica));
    }

    private static boolean isPrimary(RedisServer server) {
        try (Jedis jedis = server.jedis()) {
            return jedis.info("replication").contains("role:master");
        }
    }

    @Override
    public void close() {
        sentinel.close();
        replica.close();
        primary.close();
    }
}
