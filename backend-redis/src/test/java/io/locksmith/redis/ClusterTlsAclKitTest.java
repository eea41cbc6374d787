package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.LockStoreException;
import io.locksmith.tck.TckBase;
import io.locksmith.tck.kits.ExclusionKit;
import io.locksmith.tck.kits.ExpiryKit;
import io.locksmith.tck.kits.FencingKit;
import io.locksmith.tck.kits.OwnershipKit;
import io.locksmith.tck.kits.WaitingKit;
import io.locksmith.tck.server.RedisCluster;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kit's basic rules on a Redis Cluster over TLS ({@code rediss-cluster://}, three primaries with a replica each,
 * replication and the cluster bus over TLS), the client trusting the harness's authority with {@code trustStore=} and
 * given the nodes' TLS ports only, as a user limited to the Cluster ACL of docs/REDIS.md (read from the doc) on
 * every node, with the default replica acknowledgement ({@code WAIT}). Subclasses run it over other Redis clients.
 */
class ClusterTlsAclKitTest extends TckBase implements ExclusionKit, OwnershipKit, FencingKit, ExpiryKit, WaitingKit {

    /** Each test class's cluster and certificates: the subclasses run in parallel, each on its own. */
    private static final Map<Class<?>, RedisCluster> CLUSTERS = new ConcurrentHashMap<>();
    private static final Map<Class<?>, TestCertificates> CERTIFICATES = new ConcurrentHashMap<>();

    @BeforeAll
    static void startCluster(TestInfo test) {
        Class<?> testClass = test.getTestClass().orElseThrow();
        TestCertificates certificates = TestCertificates.createFor("redis-cluster", "DNS:localhost,IP:127.0.0.1",
                "serverAuth,clientAuth");
        CERTIFICATES.put(testClass, certificates);
        RedisCluster cluster = RedisCluster.startWithTls(certificates);
        CLUSTERS.put(testClass, cluster);
        List<String> command = new ArrayList<>(List.of("acl", "setuser", RedisAclSupport.USER, "reset"));
        command.addAll(RedisAclSupport.documentedRules("cluster"));
        for (ServerProcess node : cluster.nodes()) {
            cluster.cli(node, command.toArray(String[]::new));
        }
    }

    @AfterAll
    static void stopCluster(TestInfo test) {
        Class<?> testClass = test.getTestClass().orElseThrow();
        RedisCluster cluster = CLUSTERS.remove(testClass);
        if (cluster != null) {
            cluster.close();
        }
        TestCertificates certificates = CERTIFICATES.remove(testClass);
        if (certificates != null) {
            ServerProcess.deleteRecursively(certificates.dir());
        }
    }

    /**
     * Nothing the client sent was refused, on any node: a refusal that a client rides out (a topology query it
     * retries, a command whose answer it can do without) fails no rule, yet the ACL would not be all the client needs.
     */
    @AfterEach
    void theNodesRefusedTheUserNothing() {
        for (ServerProcess node : cluster().nodes()) {
            String log = cluster().cli(node, "acl", "log");
            assertTrue(log.isBlank(), node + " refused the user: " + log.replace('\n', ' '));
        }
    }

    private RedisCluster cluster() {
        return CLUSTERS.get(getClass());
    }

    /** {@code waitTimeout=1s} as {@link ClusterLockTckTest}: six servers replicating on a loaded 2-core machine. */
    @Override
    protected String storeUri() {
        return cluster().tlsUri().replace("rediss-cluster://", "rediss-cluster://" + RedisAclSupport.USER + ":"
                + RedisAclSupport.PASSWORD + "@") + "?waitTimeout=1s&trustStore=" + CERTIFICATES.get(getClass()).caCert()
                + "&client=" + client();
    }

    String client() {
        return "jedis";
    }

    /**
     * The premise: a client connected with TLS is told the nodes' TLS ports only, so it never uses their plain ports
     * (which are there for the harness).
     */
    @Test
    void theNodesAnnounceTheirTlsPortsToTlsClients() {
        List<Integer> tlsPorts = new ArrayList<>();
        for (String seed : cluster().tlsUri().substring("rediss-cluster://".length()).split(",")) {
            tlsPorts.add(Integer.parseInt(seed.substring(seed.indexOf(':') + 1)));
        }
        javax.net.ssl.SSLSocketFactory sockets = RedisServer.trusting(CERTIFICATES.get(getClass()));
        try (var jedis = new redis.clients.jedis.Jedis(new redis.clients.jedis.HostAndPort("127.0.0.1", tlsPorts.get(0)),
                redis.clients.jedis.DefaultJedisClientConfig.builder().ssl(true).sslSocketFactory(sockets)
                        .sslParameters(RedisTls.verifyingHostNames()).build())) {
            List<Integer> announced = new ArrayList<>();
            for (Object shard : jedis.clusterSlots()) {
                List<?> fields = (List<?>) shard;
                for (Object node : fields.subList(2, fields.size())) {
                    announced.add(((Long) ((List<?>) node).get(1)).intValue());
                }
            }
            // The primaries at least; Redis leaves out a replica that has replicated nothing yet (offset 0).
            assertTrue(announced.size() >= 3, announced.toString());
            assertTrue(tlsPorts.containsAll(announced), "announced " + announced + ", TLS ports " + tlsPorts);
        }
    }

    /** The right the client reads the slot map with. */
    String slotMapRight() {
        return "+cluster|slots";
    }

    /**
     * Without the right to read the slot map the open fails, naming the refused command, never the password, and
     * leaves nothing running that goes on asking.
     */
    @Test
    void aUserWhoMayNotReadTheSlotMapFailsTheOpenNamingTheCommand() {
        String user = "noslots" + client();
        List<String> command = new ArrayList<>(List.of("acl", "setuser", user, "reset"));
        command.addAll(RedisAclSupport.documentedRules("cluster"));
        assertTrue(command.remove(slotMapRight()));
        try {
            for (ServerProcess node : cluster().nodes()) {
                cluster().cli(node, command.toArray(String[]::new));
            }
            String uri = storeUri().replace(RedisAclSupport.USER + ":", user + ":");
            LockStoreException error = assertThrows(LockStoreException.class, () -> LockClient.open(uri).close());
            assertTrue(error.getMessage().contains("rediss-cluster://"), error.getMessage());
            assertTrue(error.getMessage().contains(slotMapRight().substring(1)), error.getMessage());
            RedisTlsSupport.assertNoSecret(error, RedisAclSupport.PASSWORD);
            // Nothing of the failed client is left asking: the refusals stop with the open.
            resetAclLogs();
            await("no refusal after the failed open").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                    .until(() -> cluster().nodes().stream().allMatch(node -> cluster().cli(node, "acl", "log").isBlank()));
        } finally {
            resetAclLogs();
        }
    }

    private void resetAclLogs() {
        for (ServerProcess node : cluster().nodes()) {
            cluster().cli(node, "acl", "log", "reset");
        }
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        ClusterTestSupport.expireNow(cluster(), lockName);
    }
}
