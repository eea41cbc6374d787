package io.locksmith.lockctl;

import io.locksmith.LockClient;
import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.RedisCluster;
import io.locksmith.tck.server.StoreServers;
import io.locksmith.tck.server.ZooKeeperEnsembles;
import io.locksmith.tck.server.ServerProcess;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * doctor end to end: mem:// through the probe lock, and real Redis (single, Sentinel, RedLock, Cluster), ZooKeeper,
 * etcd and PostgreSQL (a primary with a streaming standby) servers.
 */
class DoctorTest {

    @Test
    void memStorePassesTheProbe() {
        Run run = Run.lockctl("doctor", "--uri", "mem://doctor-test");

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        assertTrue(run.out().contains("probe lock round trip: acquire median"), run.both());
        assertTrue(run.out().contains("the only write doctor makes"), run.both());
        assertTrue(run.out().contains("[OK  ] probe inspect: the store names this client as the holder"), run.both());
        assertTrue(run.out().contains("[OK  ] probe fencing"), run.both());
        assertTrue(run.out().contains("0 FAIL"), run.both());
    }

    @Test
    void readOnlySkipsTheProbe() {
        Run run = Run.lockctl("doctor", "--uri", "mem://doctor-test", "--read-only");

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        assertTrue(run.out().contains("probe lock: skipped (--read-only): nothing was written"), run.both());
    }

    @Test
    void redisWithoutPersistenceWarnsAndAllKeysEvictionFails(@TempDir Path dir) {
        try (ServerProcess redis = Servers.redis(dir)) {
            String uri = "redis://127.0.0.1:" + redis.port();
            Run healthy = Run.lockctl("doctor", "--uri", uri, "--read-only");

            assertEquals(ExitCode.OK, healthy.exitCode(), healthy.both());
            String node = "redis 127.0.0.1:" + redis.port();
            assertTrue(healthy.out().contains(node + " round trip: PING median"), healthy.both());
            assertTrue(healthy.out().contains("[OK  ] " + node + " maxmemory-policy: noeviction"), healthy.both());
            assertTrue(healthy.out().contains("[WARN] " + node + " persistence: no AOF, no RDB snapshots"), healthy.both());
            assertTrue(healthy.out().contains("       fix: appendonly yes"), healthy.both());
            assertTrue(healthy.out().contains("[OK  ] " + node + " replication: master, no replicas"), healthy.both());
            assertTrue(healthy.out().contains("[OK  ] " + node + " clock"), healthy.both());
            assertTrue(healthy.out().contains("[OK  ] " + node + " slowlog"), healthy.both());

            try (Jedis jedis = new Jedis("127.0.0.1", redis.port())) {
                jedis.configSet("maxmemory", "100mb");
                jedis.configSet("maxmemory-policy", "allkeys-lru");
            }
            Run evicting = Run.lockctl("doctor", "--uri", uri, "--read-only", "--json");

            assertEquals(ExitCode.CHECK_FAILED, evicting.exitCode(), evicting.both());
            assertTrue(evicting.out().startsWith("{\"uri\":\"" + uri + "\",\"verdict\":\"FAIL\",\"findings\":["), evicting.both());
            assertTrue(evicting.out().contains("{\"check\":\"" + node + " maxmemory-policy\",\"verdict\":\"FAIL\","
                    + "\"detail\":\"allkeys-lru, maxmemory 104857600 bytes"), evicting.both());
        }
    }

    @Test
    void redisReportsTlsTheUserAndItsAclAgainstWhatALockClientNeeds(@TempDir Path dir) throws Exception {
        try (ServerProcess redis = Servers.redis(dir)) {
            String node = "redis 127.0.0.1:" + redis.port() + " ";
            Run open = Run.lockctl("doctor", "--uri", "redis://127.0.0.1:" + redis.port(), "--read-only");

            assertEquals(ExitCode.OK, open.exitCode(), open.both());
            assertTrue(open.out().contains("[WARN] " + node + "TLS: off (redis://)"), open.both());
            assertTrue(open.out().contains("[WARN] " + node + "authentication: none: this URI is the default user"
                    + " 'default' (ACL WHOAMI), which needs no password"), open.both());
            assertTrue(open.out().contains("[WARN] " + node + "ACL: user 'default' may run what a lock client sends, and"
                    + " more: FLUSHALL, FLUSHDB, CONFIG SET"), open.both());
            assertTrue(open.out().contains("[OK  ] " + node + "protected-mode: yes: while the default user needs no"
                    + " password"), open.both());
        }

        // TLS only, the default user off; the documented ACL (read from REDIS.md), one user with everything, one
        // without PUBLISH.
        io.locksmith.tck.server.TestCertificates certificates = io.locksmith.tck.server.TestCertificates.create("doctor-redis");
        List<String> documented = documentedRedisAcl();
        List<String> args = new java.util.ArrayList<>(List.of("--user", "default", "off", "--user", "locksmith", "on",
                ">Acl-pw-1"));
        args.addAll(documented);
        args.addAll(List.of("--user", "wide", "on", ">Wide-pw-1", "~*", "&*", "+@all", "--user", "narrow", "on",
                ">Narrow-pw-1"));
        args.addAll(documented.stream().filter(rule -> !rule.equals("+publish")).toList());
        try (ServerProcess redis = StoreServers.redisWithTls(certificates, args.toArray(String[]::new))) {
            String node = "redis 127.0.0.1:" + redis.port() + " ";
            String tls = "@127.0.0.1:" + redis.port() + "?trustStore=" + certificates.caCert();
            Run limited = Run.lockctl("doctor", "--uri", "rediss://locksmith:Acl-pw-1" + tls, "--read-only");

            assertEquals(ExitCode.OK, limited.exitCode(), limited.both());
            assertTrue(limited.out().contains("[OK  ] " + node + "TLS: on (rediss://), the server's certificate checked"
                    + " against trustStore=" + certificates.caCert() + ", host name included; no client certificate"),
                    limited.both());
            assertTrue(limited.out().contains("[OK  ] " + node + "authentication: logged in as 'locksmith'"),
                    limited.both());
            assertTrue(limited.out().contains("the server refuses clients without one"), limited.both());
            assertTrue(limited.out().contains("[OK  ] " + node + "ACL: user 'locksmith' may run what a lock client sends"
                    + " on ~locksmith:*, ~locksmith-registry:* and &locksmith:*, and none of FLUSHALL"), limited.both());

            Run wide = Run.lockctl("doctor", "--uri", "rediss://wide:Wide-pw-1" + tls, "--read-only");
            assertEquals(ExitCode.OK, wide.exitCode(), wide.both());
            assertTrue(wide.out().contains("[OK  ] " + node + "authentication: logged in as 'wide' (ACL WHOAMI)"),
                    wide.both());
            assertTrue(wide.out().contains("[WARN] " + node + "ACL: user 'wide' may run what a lock client sends, and"
                    + " more: FLUSHALL"), wide.both());
            assertTrue(wide.out().contains("[OK  ] " + node + "TLS: on (rediss://)"), wide.both());
            assertTrue(wide.out().contains("tls-auth-clients no"), wide.both());

            Run narrow = Run.lockctl("doctor", "--uri", "rediss://narrow:Narrow-pw-1" + tls, "--read-only");
            assertEquals(ExitCode.CHECK_FAILED, narrow.exitCode(), narrow.both());
            assertTrue(narrow.out().contains("[FAIL] " + node + "ACL: user 'narrow' may not run what a lock client"
                    + " sends: PUBLISH locksmith:"), narrow.both());

            for (Run run : List.of(limited, wide, narrow)) {
                assertFalse(run.both().contains("-pw-1"), run.both());
            }
        } finally {
            ServerProcess.deleteRecursively(certificates.dir());
        }
    }

    /** The rules of docs/REDIS.md's {@code ACL SETUSER locksmith} line after the password. */
    private static List<String> documentedRedisAcl() throws java.io.IOException {
        String prefix = "ACL SETUSER locksmith on >CHANGE-ME ";
        String line = java.nio.file.Files.readAllLines(Path.of("..", "docs", "REDIS.md")).stream()
                .filter(l -> l.startsWith(prefix)).findFirst().orElseThrow();
        return List.of(line.substring(prefix.length()).strip().split("\\s+"));
    }

    @Test
    void redisReplicaFailsAndMasterWarnsAboutAsyncReplication(@TempDir Path dir) throws Exception {
        Path masterDir = dir.resolve("master");
        Path replicaDir = dir.resolve("replica");
        java.nio.file.Files.createDirectories(masterDir);
        java.nio.file.Files.createDirectories(replicaDir);
        try (ServerProcess master = Servers.redis(masterDir);
             ServerProcess replica = Servers.redis(replicaDir, "--replicaof", "127.0.0.1", String.valueOf(master.port()))) {
            Run onReplica = Run.lockctl("doctor", "--uri", "redis://127.0.0.1:" + replica.port(), "--read-only");

            assertEquals(ExitCode.CHECK_FAILED, onReplica.exitCode(), onReplica.both());
            assertTrue(onReplica.out().contains("[FAIL] redis 127.0.0.1:" + replica.port() + " replication: this node is a replica"),
                    onReplica.both());

            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> {
                try (Jedis jedis = new Jedis("127.0.0.1", master.port())) {
                    return jedis.info("replication").contains("connected_slaves:1");
                }
            });
            Run onMaster = Run.lockctl("doctor", "--uri", "redis://127.0.0.1:" + master.port(), "--read-only");

            assertEquals(ExitCode.OK, onMaster.exitCode(), onMaster.both());
            assertTrue(onMaster.out().contains("replication: master with 1 replica(s)"), onMaster.both());
            assertTrue(onMaster.out().contains("a failover can forget a granted lock"), onMaster.both());
        }
    }

    @Test
    void redlockWithTwoOfThreeMastersDownHasNoQuorum(@TempDir Path dir) {
        try (ServerProcess redis = Servers.redis(dir)) {
            // Three masters: the URI is read as the backend reads it, and RedLock needs at least three.
            Run run = Run.lockctl("doctor", "--uri", "redlock://127.0.0.1:" + redis.port() + ",127.0.0.1:1,127.0.0.1:2",
                    "--read-only", "--timeout", "1s");

            assertEquals(ExitCode.CHECK_FAILED, run.exitCode(), run.both());
            assertTrue(run.out().contains("redis 127.0.0.1:" + redis.port() + " round trip"), run.both());
            assertTrue(run.out().contains("[FAIL] redis 127.0.0.1:1 reachable: cannot reach redis at 127.0.0.1:1"), run.both());
            assertTrue(run.out().contains("[FAIL] redlock quorum: 1 of 3 masters reachable: no majority"), run.both());
        }
    }

    @Test
    void sentinelLeadsDoctorToTheMasterAndFailsWithoutAReplicaToWaitFor(@TempDir Path dir) throws Exception {
        try (ServerProcess master = Servers.redis(dir);
             ServerProcess sentinel = Servers.sentinel(dir, "locks", master.port())) {
            String uri = "redis-sentinel://127.0.0.1:" + sentinel.port() + "/locks";
            Run run = Run.lockctl("doctor", "--uri", uri, "--read-only");

            assertEquals(ExitCode.CHECK_FAILED, run.exitCode(), run.both());
            assertTrue(run.out().contains("[WARN] sentinel locks: master at 127.0.0.1:" + master.port() + " (asked 127.0.0.1:"
                    + sentinel.port() + "); 1 Sentinel(s) in the group, quorum 1, 1 in the URI"), run.both());
            assertTrue(run.out().contains("[FAIL] sentinel locks replicas: 0 of 0 replica(s) up, waitReplicas=1: no acquire"
                    + " or renewal can be acknowledged now"), run.both());
            assertTrue(run.out().contains("redis 127.0.0.1:" + master.port() + " maxmemory-policy"), run.both());
            assertTrue(run.out().contains("[WARN] sentinel locks authentication: the Sentinel at 127.0.0.1:"
                    + sentinel.port() + " answers a client without a password"), run.both());

            Run fencedOnly = Run.lockctl("doctor", "--uri", uri + "?waitReplicas=0&lease=1s", "--read-only");

            assertEquals(ExitCode.OK, fencedOnly.exitCode(), fencedOnly.both());
            assertTrue(fencedOnly.out().contains("[WARN] sentinel locks replicas: 0 of 0 replica(s) up; waitReplicas=0,"
                    + " fenced only: a primary cut off"), fencedOnly.both());
            assertTrue(fencedOnly.out().contains("[WARN] sentinel locks down-after-milliseconds: down-after 1000 ms,"
                    + " lease 1000 ms: by the time a cut-off primary is declared down"), fencedOnly.both());
            assertTrue(fencedOnly.out().contains("[WARN] redis 127.0.0.1:" + master.port() + " min-replicas-to-write: 0 (off)"),
                    fencedOnly.both());
        }
    }

    @Test
    void sentinelReportsReplicasAgainstWaitMinReplicasToWriteAndDownAfterAgainstTheLease(@TempDir Path dir) {
        try (ServerProcess master = Servers.redis(dir);
             ServerProcess first = Servers.redis(dir, "--replicaof", "127.0.0.1", String.valueOf(master.port()));
             ServerProcess second = Servers.redis(dir, "--replicaof", "127.0.0.1", String.valueOf(master.port()));
             ServerProcess sentinel = Servers.sentinel(dir, "locks", master.port())) {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until(() -> {
                try (Jedis jedis = new Jedis("127.0.0.1", sentinel.port())) {
                    return jedis.sentinelReplicas("locks").stream()
                            .filter(replica -> "ok".equals(replica.get("master-link-status"))).count() == 2;
                }
            });
            String uri = "redis-sentinel://127.0.0.1:" + sentinel.port() + "/locks";
            String primary = "redis 127.0.0.1:" + master.port();
            Run run = Run.lockctl("doctor", "--uri", uri, "--read-only");

            assertEquals(ExitCode.OK, run.exitCode(), run.both());
            assertTrue(run.out().contains("[OK  ] sentinel locks replicas: 2 of 2 replica(s) up, waitReplicas=1: acquire"
                    + " and renew wait for 1; after a failover 1 remain to acknowledge"), run.both());
            assertTrue(run.out().contains("[OK  ] sentinel locks down-after-milliseconds: down-after 1000 ms, lease 30000 ms:"
                    + " the Sentinels may fail over before a holder's lease runs out"), run.both());
            assertTrue(run.out().contains("[OK  ] " + primary + " min-replicas-to-write: 0 (off)"), run.both());
            assertTrue(run.out().contains("[OK  ] " + primary + " replication: master with 2 replica(s)"), run.both());

            Run noSpare = Run.lockctl("doctor", "--uri", uri + "?waitReplicas=2&lease=1s", "--read-only");

            assertTrue(noSpare.out().contains("[WARN] sentinel locks replicas: 2 of 2 replica(s) up, waitReplicas=2: after a"
                    + " failover the promoted primary has 1 replica(s) left to acknowledge, so the lock is unavailable"),
                    noSpare.both());
            assertTrue(noSpare.out().contains("[OK  ] sentinel locks down-after-milliseconds: down-after 1000 ms, lease"
                    + " 1000 ms: a holder on a primary that fails or is cut off loses its lease"), noSpare.both());

            try (Jedis jedis = new Jedis("127.0.0.1", master.port())) {
                jedis.configSet("min-replicas-to-write", "2");
            }
            Run strict = Run.lockctl("doctor", "--uri", uri, "--read-only");
            assertTrue(strict.out().contains("[WARN] " + primary + " min-replicas-to-write: 2 with lag 10 s: the primary"
                    + " refuses writes once fewer than 2 replica(s) acknowledged within 10 s"), strict.both());
            assertTrue(strict.out().contains("losing one stops every write"), strict.both());

            try (Jedis jedis = new Jedis("127.0.0.1", master.port())) {
                jedis.configSet("min-replicas-to-write", "3");
            }
            Run impossible = Run.lockctl("doctor", "--uri", uri, "--read-only");
            assertEquals(ExitCode.CHECK_FAILED, impossible.exitCode(), impossible.both());
            assertTrue(impossible.out().contains("[FAIL] " + primary + " min-replicas-to-write: 3 with lag 10 s"), impossible.both());
        }
    }

    @Test
    void zooKeeperReportsSessionTimeoutEnsembleAndQuorum() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true)) {
            Run run = Run.lockctl("doctor", "--uri", "zookeeper://" + zookeeper.getConnectString() + "/locks",
                    "--read-only");

            assertEquals(ExitCode.OK, run.exitCode(), run.both());
            assertTrue(run.out().contains("[OK  ] zookeeper connect: connected to " + zookeeper.getConnectString()), run.both());
            assertTrue(run.out().contains("zookeeper session timeout: negotiated"), run.both());
            assertTrue(run.out().contains("[WARN] zookeeper ensemble: 1 server(s)"), run.both());
            assertTrue(run.out().contains("zookeeper " + zookeeper.getConnectString() + " srvr"), run.both());
            assertTrue(run.out().contains("zookeeper quorum"), run.both());
            assertTrue(run.out().contains("[OK  ] zookeeper timing: tickTime "), run.both());
        }
    }

    @Test
    void zooKeeperReportsWhoCanTakeOrFreeItsLocks() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true)) {
            String hosts = zookeeper.getConnectString();
            Run open = Run.lockctl("doctor", "--uri", "zookeeper://" + hosts + "/open-locks", "--read-only");
            assertTrue(open.out().contains("[WARN] zookeeper security: plain TCP, no authentication, ACL of"
                    + " /open-locks: not created yet (it will be open to anyone): any client that reaches the ensemble"
                    + " can delete a held lock's node"), open.both());

            // The probe lock (not read-only) makes the base path as the user's alone.
            Run owned = Run.lockctl("doctor", "--uri", "zookeeper://app:s3cret@" + hosts + "/app-locks");
            assertTrue(owned.out().contains("[WARN] zookeeper security: plain TCP, digest user 'app'"), owned.both());
            Run again = Run.lockctl("doctor", "--uri", "zookeeper://app:s3cret@" + hosts + "/app-locks", "--read-only");
            assertTrue(again.out().contains("ACL of /app-locks: digest 'app': the digest password and the holders"
                    + " travel in clear text"), again.both());
            assertFalse(again.both().contains("s3cret"), again.both());

            Run intruder = Run.lockctl("doctor", "--uri", "zookeeper://mallory:guess@" + hosts + "/app-locks",
                    "--read-only");
            assertEquals(ExitCode.CHECK_FAILED, intruder.exitCode(), intruder.both());
            assertTrue(intruder.out().contains("[FAIL] zookeeper security: plain TCP, digest user 'mallory': the base"
                    + " path /app-locks belongs to another identity (NOAUTH)"), intruder.both());
        }
    }

    @Test
    void zooKeeperShowsTickTimesSyncLimitAgainstTheSessionTimeout() throws Exception {
        try (TestingCluster ensemble = ZooKeeperEnsembles.of(3)) {
            ensemble.start();
            Run run = Run.lockctl("doctor", "--uri", "zookeeper://" + ensemble.getConnectString() + "/locks",
                    "--read-only");
            assertTrue(run.out().contains("zookeeper timing: tickTime "), run.both());
            assertTrue(run.out().contains(" x syncLimit "), run.both());
            assertTrue(run.out().contains("(a follower cut from the leader serves stale reads this long)"), run.both());
        }
    }

    @Test
    void zooKeeperFailsASessionShorterThanTwoTicks() throws Exception {
        // minSessionTimeout lowered below two ticks: the backend's proof through the leader no longer holds.
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, 2000, -1,
                java.util.Map.of("minSessionTimeout", "1000"));
        try (TestingServer zookeeper = new TestingServer(spec, true)) {
            Run run = Run.lockctl("doctor", "--uri", "zookeeper://" + zookeeper.getConnectString()
                    + "/locks?sessionTimeout=1s", "--read-only");
            assertTrue(run.out().contains("[FAIL] zookeeper timing: tickTime 2000 ms"), run.both());
            assertTrue(run.out().contains("session timeout 1000 ms"), run.both());
        }
    }

    @Test
    void unreachableZooKeeperExitsThree() {
        Run run = Run.lockctl("doctor", "--uri", "zookeeper://127.0.0.1:1", "--read-only", "--timeout", "1s");

        assertEquals(ExitCode.STORE_UNREACHABLE, run.exitCode(), run.both());
        assertTrue(run.err().contains("lockctl: store unreachable: cannot reach zookeeper at 127.0.0.1:1"), run.both());
    }

    @Test
    void etcdReportsMembersStatusAndLeader(@TempDir Path dir) {
        try (ServerProcess etcd = Servers.etcd(dir)) {
            Run run = Run.lockctl("doctor", "--uri", "etcd://127.0.0.1:" + etcd.port(), "--read-only", "--timeout", "5s");

            assertEquals(ExitCode.OK, run.exitCode(), run.both());
            assertTrue(run.out().contains("[WARN] etcd members: 1 member(s): single"), run.both());
            // OK, or WARN when the loaded test machine answers slowly: not a timing assertion.
            assertTrue(run.out().contains("etcd http://127.0.0.1:" + etcd.port() + " status: version 3."), run.both());
            assertTrue(run.out().contains("[OK  ] etcd leader: all answering endpoints agree"), run.both());
            assertTrue(run.out().contains("[WARN] etcd TLS: off (etcd://)"), run.both());
            assertTrue(run.out().contains("[WARN] etcd authentication: off"), run.both());
        }
    }

    @Test
    void etcdOverTlsWithAuthenticationReportsBothAndTheUsersAccess(@TempDir Path dir) throws Exception {
        io.locksmith.tck.server.TestCertificates certificates = io.locksmith.tck.server.TestCertificates.create("doctor");
        int clientPort = FreePorts.next();
        int peerPort = FreePorts.next();
        try (ServerProcess etcd = StoreServers.etcdMember("doctor", clientPort, peerPort,
                "doctor=http://127.0.0.1:" + peerPort, dir, certificates, false, List.of())) {
            enableEtcdAuth("https://127.0.0.1:" + clientPort, certificates);
            String trust = "?trustStore=" + certificates.caCert();
            String secure = "etcds://locker:Locker-pw-1@127.0.0.1:" + clientPort + trust;

            Run run = Run.lockctl("doctor", "--uri", secure, "--read-only", "--timeout", "5s");
            assertEquals(ExitCode.OK, run.exitCode(), run.both());
            assertTrue(run.out().contains("[OK  ] etcd TLS: on (etcds://), server certificate checked against trustStore="
                    + certificates.caCert() + ", no client certificate"), run.both());
            assertTrue(run.out().contains("[OK  ] etcd authentication: on: logged in as user 'locker', which may read"
                    + " the lock prefix /locksmith/"), run.both());
            assertTrue(!run.both().contains("Locker-pw-1"), run.both());
            // /debug/vars over TLS, trusting trustStore: the harness's members run with --pre-vote=true.
            assertTrue(run.out().contains("[OK  ] etcd https://127.0.0.1:" + clientPort + " pre-vote: --pre-vote=true"),
                    run.both());

            Run otherPrefix = Run.lockctl("doctor", "--uri", secure + "&prefix=/elsewhere/", "--read-only",
                    "--timeout", "5s");
            assertTrue(otherPrefix.out().contains("[FAIL] etcd authentication: on; user 'locker' may not read the lock"
                    + " prefix /elsewhere/"), otherPrefix.both());

            Run anonymous = Run.lockctl("doctor", "--uri", "etcds://127.0.0.1:" + clientPort + trust, "--read-only",
                    "--timeout", "5s");
            assertTrue(anonymous.out().contains("[FAIL] etcd authentication: on, and this URI names no user"),
                    anonymous.both());
        } finally {
            ServerProcess.deleteRecursively(certificates.dir());
        }
    }

    /** Root, and user {@code locker} whose role may read and write {@code /locksmith/}; then authentication on. */
    private static void enableEtcdAuth(String endpoint, io.locksmith.tck.server.TestCertificates certificates)
            throws Exception {
        try (io.etcd.jetcd.Client admin = io.etcd.jetcd.Client.builder().endpoints(endpoint)
                .sslContext(ssl -> ssl.trustManager(certificates.caCert().toFile())).build()) {
            admin.getKVClient().get(bytes("health")).get(30, java.util.concurrent.TimeUnit.SECONDS);
            io.etcd.jetcd.Auth auth = admin.getAuthClient();
            auth.roleAdd(bytes("root")).get(10, java.util.concurrent.TimeUnit.SECONDS);
            auth.userAdd(bytes("root"), bytes("Root-pw-1")).get(10, java.util.concurrent.TimeUnit.SECONDS);
            auth.userGrantRole(bytes("root"), bytes("root")).get(10, java.util.concurrent.TimeUnit.SECONDS);
            auth.roleAdd(bytes("locks")).get(10, java.util.concurrent.TimeUnit.SECONDS);
            auth.roleGrantPermission(bytes("locks"), bytes("/locksmith/"), bytes("/locksmith0"),
                    io.etcd.jetcd.auth.Permission.Type.READWRITE).get(10, java.util.concurrent.TimeUnit.SECONDS);
            auth.userAdd(bytes("locker"), bytes("Locker-pw-1")).get(10, java.util.concurrent.TimeUnit.SECONDS);
            auth.userGrantRole(bytes("locker"), bytes("locks")).get(10, java.util.concurrent.TimeUnit.SECONDS);
            auth.authEnable().get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    private static io.etcd.jetcd.ByteSequence bytes(String text) {
        return io.etcd.jetcd.ByteSequence.from(text, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void redisClusterWithOneReplicaPerShardWarnsOfTheFailoverAndOfAMigrationLeftOpen() {
        try (RedisCluster cluster = RedisCluster.start()) {
            Run run = Run.lockctl("doctor", "--uri", cluster.uri(), "--timeout", "5s");

            assertEquals(ExitCode.OK, run.exitCode(), run.both());
            assertTrue(run.out().contains("[OK  ] redis cluster topology: 3 primaries serving slots, 3 replica(s), 6 node(s)"
                    + " in all"), run.both());
            assertTrue(run.out().contains("[OK  ] redis cluster state: cluster_state:ok on 6 of 6 node(s) asked"), run.both());
            assertTrue(run.out().contains("[OK  ] redis cluster slot coverage: all 16384 slots served by a live primary"),
                    run.both());
            String firstShard = "redis cluster shard 127.0.0.1:" + cluster.primaryOf(0).port() + " (slots 0-5460) replicas";
            assertTrue(run.out().contains("[WARN] " + firstShard + ": 1 of 1 replica(s) up, waitReplicas=1: after a"
                    + " failover the promoted replica has no replica to acknowledge grants until another returns"), run.both());
            assertTrue(run.out().contains("       fix: add a replica (CLUSTER REPLICATE <primary-id> on a new node): 2 replicas"
                    + " per shard keep locking through one failover"), run.both());
            assertEquals(3, run.out().lines().filter(line -> line.startsWith("[WARN] redis cluster shard ")).count(),
                    run.both());
            assertTrue(run.out().contains("[OK  ] redis cluster cluster-node-timeout: cluster-node-timeout 1000 ms, a"
                    + " failover about 2000 ms with the election, lease 30000 ms"), run.both());
            assertTrue(run.out().contains("[OK  ] redis cluster slot migrations: none in progress"), run.both());
            assertTrue(run.out().contains("[OK  ] redis cluster WAIT: WAIT 0 0 answered on 3 primaries; acquire and renew"
                    + " wait for 1 replica(s) with it"), run.both());
            for (int slot : new int[] {0, 8000, 16383}) {
                String primary = "redis 127.0.0.1:" + cluster.primaryOf(slot).port();
                assertTrue(run.out().contains("[OK  ] " + primary + " maxmemory-policy: noeviction"), run.both());
                assertTrue(run.out().contains("[WARN] " + primary + " persistence: no AOF"), run.both());
                assertTrue(run.out().contains("[OK  ] " + primary + " replication: master with 1 replica(s)"), run.both());
            }
            assertTrue(run.out().contains("[OK  ] probe fencing"), run.both());

            Run shortLease = Run.lockctl("doctor", "--uri", cluster.uri() + "?lease=1s", "--read-only", "--timeout", "5s");
            assertEquals(ExitCode.OK, shortLease.exitCode(), shortLease.both());
            assertTrue(shortLease.out().contains("[WARN] redis cluster cluster-node-timeout: cluster-node-timeout 1000 ms,"
                    + " a failover about 2000 ms with the election, lease 1000 ms: a failover can take longer than the"
                    + " lease"), shortLease.both());

            // A reshard stopped after its first two steps: the slot is marked on both nodes, its keys never move.
            ServerProcess source = cluster.primaryOf(42);
            ServerProcess target = cluster.otherPrimary(42);
            cluster.cli(target, "cluster", "setslot", "42", "importing", cluster.nodeId(source));
            cluster.cli(source, "cluster", "setslot", "42", "migrating", cluster.nodeId(target));
            Run migrating = Run.lockctl("doctor", "--uri", cluster.uri(), "--read-only", "--timeout", "5s");

            assertEquals(ExitCode.OK, migrating.exitCode(), migrating.both());
            assertTrue(migrating.out().contains("[WARN] redis cluster slot migrations: "), migrating.both());
            assertTrue(migrating.out().contains("slot 42 MIGRATING on 127.0.0.1:" + source.port() + " to 127.0.0.1:"
                    + target.port()), migrating.both());
            assertTrue(migrating.out().contains("slot 42 IMPORTING on 127.0.0.1:" + target.port() + " from 127.0.0.1:"
                    + source.port()), migrating.both());
            assertTrue(migrating.out().contains("acquires of names in it are answered TRYAGAIN"), migrating.both());
            assertTrue(migrating.out().contains("or cancel it with CLUSTER SETSLOT <slot> STABLE on both nodes"),
                    migrating.both());
        }
    }

    @Test
    void redisClusterShardLeftWithoutAReplicaAfterAFailoverFailsUntilTheOldPrimaryReturns() {
        try (RedisCluster cluster = RedisCluster.start()) {
            ServerProcess old = cluster.primaryOf(0);
            String oldId = cluster.nodeId(old);
            old.kill();
            ServerProcess promoted = cluster.awaitPrimaryOf(0, old);
            String promotedId = cluster.nodeId(promoted);
            // Every live node knows the old primary failed and the promoted one serves its slots, as doctor's seed must.
            awaitEveryLiveNode(cluster, nodes -> nodeLine(nodes, oldId).contains(",fail ")
                    && nodeLine(nodes, promotedId).contains(" 0-5460"));
            Run run = Run.lockctl("doctor", "--uri", cluster.uri(), "--read-only", "--timeout", "5s");

            assertEquals(ExitCode.CHECK_FAILED, run.exitCode(), run.both());
            assertTrue(run.out().contains("[FAIL] redis cluster shard 127.0.0.1:" + promoted.port() + " (slots 0-5460)"
                    + " replicas: 0 of 0 replica(s) up, waitReplicas=1: WAIT 1 can never be met"), run.both());
            assertTrue(run.out().contains("[WARN] redis cluster state: cluster_state:ok on 5 of 6 node(s) asked; flagged"
                    + " failed by the cluster: 127.0.0.1:" + old.port() + " (primary, fail)"), run.both());
            assertTrue(run.out().contains("[OK  ] redis cluster slot coverage: all 16384 slots"), run.both());

            old.restart();
            cluster.awaitReady();
            awaitEveryLiveNode(cluster, nodes -> !nodes.contains("fail") && nodeLine(nodes, oldId).contains("slave "));
            Run back = Run.lockctl("doctor", "--uri", cluster.uri(), "--read-only", "--timeout", "5s");

            assertEquals(ExitCode.OK, back.exitCode(), back.both());
            assertTrue(back.out().contains("[WARN] redis cluster shard 127.0.0.1:" + promoted.port() + " (slots 0-5460)"
                    + " replicas: 1 of 1 replica(s) up"), back.both());
        }
    }

    @Test
    void redisClusterWithoutReplicasFailsAndAShardDownLeavesItsSlotsUncovered() {
        try (RedisCluster cluster = RedisCluster.start(3, 0, RedisCluster.DEFAULT_NODE_TIMEOUT,
                RedisCluster.SlotLayout.EVEN)) {
            Run run = Run.lockctl("doctor", "--uri", cluster.uri(), "--read-only", "--timeout", "5s");

            assertEquals(ExitCode.CHECK_FAILED, run.exitCode(), run.both());
            assertEquals(3, run.out().lines().filter(line -> line.startsWith("[FAIL] redis cluster shard ")
                    && line.contains("replicas: 0 of 0 replica(s) up, waitReplicas=1: WAIT 1 can never be met, so no"
                    + " acquire or renewal of a name in these slots is acknowledged")).count(), run.both());

            Run fencedOnly = Run.lockctl("doctor", "--uri", cluster.uri() + "?waitReplicas=0", "--read-only",
                    "--timeout", "5s");
            assertEquals(ExitCode.OK, fencedOnly.exitCode(), fencedOnly.both());
            assertTrue(fencedOnly.out().contains("replicas: 0 of 0 replica(s) up; waitReplicas=0, fenced only"),
                    fencedOnly.both());

            ServerProcess last = cluster.primaryOf(16383);
            String lastId = cluster.nodeId(last);
            last.kill();
            awaitEveryLiveNode(cluster, nodes -> nodeLine(nodes, lastId).contains(",fail "));
            Run down = Run.lockctl("doctor", "--uri", cluster.uri(), "--read-only", "--timeout", "5s");

            int first = 16384 * 2 / 3;
            assertEquals(ExitCode.CHECK_FAILED, down.exitCode(), down.both());
            assertTrue(down.out().contains("[FAIL] redis cluster slot coverage: " + (16384 - first) + " of 16384 slots"
                    + " served by no live primary (" + first + "-16383): no lock whose name hashes there"), down.both());
        }
    }

    @Test
    void postgresWithAnAsynchronousStandbyWarnsAndTheStandbyItselfOrAReadOnlyPrimaryFails() throws Exception {
        try (ServerProcess primary = StoreServers.postgres();
             ServerProcess standby = standbyOf(primary)) {
            awaitReplication(primary, "async");
            String uri = "postgres://" + StoreServers.POSTGRES_USER + "@127.0.0.1:" + primary.port() + "/postgres";
            Run async = Run.lockctl("doctor", "--uri", uri, "--read-only", "--timeout", "5s");

            assertEquals(ExitCode.OK, async.exitCode(), async.both());
            assertTrue(async.out().contains("[OK  ] postgres role: primary (not in recovery)"), async.both());
            assertTrue(async.out().contains("[WARN] postgres replication: 1 standby(s), all asynchronous ("), async.both());
            assertTrue(async.out().contains("a grant committed on the primary and not yet on an asynchronous standby is"
                    + " lost at failover"), async.both());

            sql(primary, "ALTER SYSTEM SET synchronous_standby_names = '*'");
            sql(primary, "SELECT pg_reload_conf()");
            awaitReplication(primary, "sync");
            Run sync = Run.lockctl("doctor", "--uri", uri, "--read-only", "--timeout", "5s");

            assertTrue(sync.out().contains("[OK  ] postgres replication: synchronous: "), sync.both());
            assertTrue(sync.out().contains("synchronous_standby_names='*', synchronous_commit=on: every grant is on a"
                    + " synchronous standby before the client hears of it"), sync.both());

            sql(primary, "ALTER SYSTEM SET synchronous_commit = 'local'");
            sql(primary, "SELECT pg_reload_conf()");
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> sql(primary, "SHOW synchronous_commit").equals("local"));
            Run local = Run.lockctl("doctor", "--uri", uri, "--read-only", "--timeout", "5s");

            assertTrue(local.out().contains("synchronous_commit=local: commits do not wait for the synchronous standby"),
                    local.both());
            assertTrue(local.out().contains("[WARN] postgres replication: synchronous: "), local.both());

            Run onStandby = Run.lockctl("doctor", "--uri", "postgres://" + StoreServers.POSTGRES_USER + "@127.0.0.1:"
                    + standby.port() + "/postgres", "--read-only", "--timeout", "5s");

            assertEquals(ExitCode.CHECK_FAILED, onStandby.exitCode(), onStandby.both());
            assertTrue(onStandby.out().contains("[FAIL] postgres role: every server of 127.0.0.1:" + standby.port()
                    + " that answers is a standby (pg_is_in_recovery() is true)"), onStandby.both());

            sql(primary, "ALTER SYSTEM SET default_transaction_read_only = on");
            sql(primary, "SELECT pg_reload_conf()");
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> sql(primary, "SHOW default_transaction_read_only").equals("on"));
            Run readOnly = Run.lockctl("doctor", "--uri", uri, "--read-only", "--timeout", "5s");

            assertEquals(ExitCode.CHECK_FAILED, readOnly.exitCode(), readOnly.both());
            assertTrue(readOnly.out().contains("[FAIL] postgres role: a primary (not in recovery) whose sessions are"
                    + " read-only (default_transaction_read_only=on): every lock write is refused"), readOnly.both());
        }
    }

    @Test
    void postgresReportsTlsTheLoginRoleAndItsPrivilegesAgainstWhatALockClientNeeds() throws Exception {
        io.locksmith.tck.server.TestCertificates certificates = io.locksmith.tck.server.TestCertificates.create("doctor-pg");
        io.locksmith.tck.server.TestCertificates.ClientCertificate client = certificates.clientCertificate("locker");
        try (ServerProcess postgres = StoreServers.postgresWithMutualTls(certificates)) {
            // The objects made by a lock client of the harness's superuser; the application's role gets the grants of
            // POSTGRES.md and logs in over TLS only, with its password and a client certificate naming it (the
            // harness's pg_hba.conf: clientcert=verify-full).
            LockClient.open("postgres://" + StoreServers.POSTGRES_USER + "@127.0.0.1:" + postgres.port() + "/postgres")
                    .close();
            sql(postgres, "CREATE ROLE locker LOGIN PASSWORD 'Locker-pg-1'");
            for (String grant : List.of("GRANT USAGE ON SCHEMA public TO locker",
                    "GRANT SELECT, INSERT, UPDATE ON TABLE public.locksmith_locks TO locker",
                    "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.locksmith_abandoned TO locker",
                    "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.locksmith_registry TO locker",
                    "GRANT USAGE ON SEQUENCE public.locksmith_fence TO locker")) {
                sql(postgres, grant);
            }
            String base = "postgres://locker@127.0.0.1:" + postgres.port() + "/postgres?passwordEnv=LOCKCTL_TEST_PG_PASSWORD"
                    + "&sslcert=" + client.cert() + "&sslkey=" + client.key();
            String verified = base + "&sslmode=verify-full&sslrootcert=" + certificates.caCert();

            Run good = Run.lockctl("doctor", "--uri", verified, "--read-only", "--timeout", "5s");
            assertEquals(ExitCode.OK, good.exitCode(), good.both());
            assertTrue(good.out().contains("[OK  ] postgres TLS: on (TLSv1."), good.both());
            assertTrue(good.out().contains("pg_stat_ssl), sslmode=verify-full: the server's certificate is checked against"
                    + " sslrootcert=" + certificates.caCert() + ", host name included; client certificate /CN=locker"),
                    good.both());
            assertTrue(good.out().contains("[OK  ] postgres role identity: role locker, password from the environment"
                    + " variable LOCKCTL_TEST_PG_PASSWORD; not a superuser"), good.both());
            assertTrue(good.out().contains("[OK  ] postgres privileges: role locker has exactly what a lock client needs"),
                    good.both());
            assertFalse(good.both().contains("Locker-pg-1"), good.both());

            Run unverified = Run.lockctl("doctor", "--uri", base + "&sslmode=require", "--read-only", "--timeout", "5s");
            assertTrue(unverified.out().contains("[WARN] postgres TLS: on (TLSv1."), unverified.both());
            assertTrue(unverified.out().contains("sslmode=require: the server's certificate is not checked"),
                    unverified.both());

            sql(postgres, "GRANT DELETE ON TABLE public.locksmith_locks TO locker");
            sql(postgres, "ALTER TABLE public.locksmith_registry OWNER TO locker");
            Run excessive = Run.lockctl("doctor", "--uri", verified, "--read-only", "--timeout", "5s");
            assertEquals(ExitCode.OK, excessive.exitCode(), excessive.both());
            assertTrue(excessive.out().contains("[WARN] postgres privileges: role locker may take, renew and release"
                    + " locks, and more: role locker owns public.locksmith_registry"), excessive.both());
            assertTrue(excessive.out().contains("role locker has DELETE on table public.locksmith_locks"),
                    excessive.both());

            sql(postgres, "REVOKE UPDATE ON TABLE public.locksmith_locks FROM locker");
            Run missing = Run.lockctl("doctor", "--uri", verified, "--read-only", "--timeout", "5s");
            assertEquals(ExitCode.CHECK_FAILED, missing.exitCode(), missing.both());
            assertTrue(missing.out().contains("[FAIL] postgres privileges: role locker lacks UPDATE on table"
                    + " public.locksmith_locks: a lock client refuses to start with this role"), missing.both());
            assertTrue(missing.out().contains("GRANT SELECT, INSERT, UPDATE ON TABLE public.locksmith_locks TO locker"),
                    missing.both());
        } finally {
            ServerProcess.deleteRecursively(certificates.dir());
        }
    }

    /** A streaming standby of {@code primary} from a base backup ({@code -R} writes its connection and signal file). */
    private static ServerProcess standbyOf(ServerProcess primary) {
        int port = FreePorts.next();
        Path dir = StoreServers.ownedByPostgresUser(StoreServers.tempDir("postgres-standby-" + port));
        Path data = dir.resolve("data");
        try {
            StoreServers.runPostgresTool(dir, "pg_basebackup", "-h", "127.0.0.1", "-p", Integer.toString(primary.port()),
                    "-U", StoreServers.POSTGRES_USER, "-D", data.toString(), "-R", "-X", "stream", "-c", "fast",
                    "--no-sync");
            return StoreServers.startPostgres(port, data, dir, List.of()).deleteWorkDirOnClose();
        } catch (RuntimeException e) {
            ServerProcess.deleteRecursively(dir);
            throw e;
        }
    }

    private static void awaitReplication(ServerProcess primary, String syncState) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> ("streaming|" + syncState)
                .equals(sql(primary, "SELECT state || '|' || sync_state FROM pg_stat_replication")));
    }

    /** The first column of the first row of {@code statement} run on {@code server}, or "" without a row. */
    private static String sql(ServerProcess server, String statement) throws SQLException {
        try (Connection connection = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port()
                + "/postgres", StoreServers.POSTGRES_USER, "");
             Statement query = connection.createStatement()) {
            if (!query.execute(statement)) {
                return ""; // ALTER SYSTEM and the like: no rows
            }
            try (ResultSet rows = query.getResultSet()) {
                return rows.next() ? String.valueOf(rows.getString(1)) : "";
            }
        }
    }

    private static void awaitEveryLiveNode(RedisCluster cluster, Predicate<String> clusterNodes) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> cluster.nodes().stream()
                .filter(ServerProcess::isAlive).allMatch(node -> clusterNodes.test(cluster.cli(node, "cluster", "nodes"))));
    }

    /** The line of {@code CLUSTER NODES} for node {@code id}, or "" if it is not there. */
    private static String nodeLine(String clusterNodes, String id) {
        return clusterNodes.lines().filter(line -> line.startsWith(id + " ")).findFirst().orElse("") + " ";
    }
}
