package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.tck.TckBase;
import io.locksmith.tck.kits.ExclusionKit;
import io.locksmith.tck.kits.ExpiryKit;
import io.locksmith.tck.kits.FencingKit;
import io.locksmith.tck.kits.OwnershipKit;
import io.locksmith.tck.kits.WaitingKit;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kit's basic rules through Jedis on a Sentinel deployment over TLS ({@code rediss-sentinel://}): primary,
 * replica and Sentinel TLS only, replication over TLS, the client trusting the harness's authority with
 * {@code trustStore=}, as a user limited to the Sentinel ACL of docs/REDIS.md (read from the doc) on the primary and
 * the replica, with the default replica acknowledgement ({@code WAIT}). Subclasses run it over other Redis clients.
 */
class SentinelTlsAclKitTest extends TckBase implements ExclusionKit, OwnershipKit, FencingKit, ExpiryKit, WaitingKit {

    /** Each test class's servers and certificates: the subclasses run in parallel, each on its own. */
    private static final Map<Class<?>, SentinelGroup> GROUPS = new ConcurrentHashMap<>();
    private static final Map<Class<?>, TestCertificates> CERTIFICATES = new ConcurrentHashMap<>();

    @BeforeAll
    static void startServers(TestInfo test) {
        Class<?> testClass = test.getTestClass().orElseThrow();
        TestCertificates certificates = TestCertificates.create("redis-sentinel");
        CERTIFICATES.put(testClass, certificates);
        SentinelGroup group = new SentinelGroup(certificates);
        GROUPS.put(testClass, group);
        for (RedisServer server : new RedisServer[] {group.primary, group.replica}) {
            RedisAclSupport.setUser(server, RedisAclSupport.USER, RedisAclSupport.documentedRules("sentinel"));
        }
    }

    @AfterAll
    static void stopServers(TestInfo test) {
        Class<?> testClass = test.getTestClass().orElseThrow();
        SentinelGroup group = GROUPS.remove(testClass);
        if (group != null) {
            group.close();
        }
        TestCertificates certificates = CERTIFICATES.remove(testClass);
        if (certificates != null) {
            ServerProcess.deleteRecursively(certificates.dir());
        }
    }

    /** Nothing the client sent was refused on the primary or the replica (see {@link ClusterTlsAclKitTest}). */
    @AfterEach
    void theServersRefusedTheUserNothing() {
        for (RedisServer server : new RedisServer[] {group().primary, group().replica}) {
            try (var jedis = server.jedis()) {
                assertTrue(jedis.aclLog().isEmpty(), server + " refused the user: " + jedis.aclLog());
            }
        }
    }

    private SentinelGroup group() {
        return GROUPS.get(getClass());
    }

    String client() {
        return "jedis";
    }

    @Override
    protected String storeUri() {
        return "rediss-sentinel://" + RedisAclSupport.USER + ":" + RedisAclSupport.PASSWORD + "@"
                + group().sentinel.address() + "/" + SentinelGroup.MASTER + "?trustStore="
                + CERTIFICATES.get(getClass()).caCert() + "&client=" + client();
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        group().currentPrimary().expireNow(lockName);
    }

    /** The premise: no server of the deployment answers without TLS, and each answers with it. */
    @Test
    void everyServerSpeaksTlsOnly() {
        for (RedisServer server : new RedisServer[] {group().primary, group().replica, group().sentinel}) {
            try (var jedis = server.jedis()) {
                assertEquals("PONG", jedis.ping());
            }
            assertThrows(redis.clients.jedis.exceptions.JedisException.class, () -> {
                try (var plain = new redis.clients.jedis.Jedis("127.0.0.1", server.port(), 1000)) {
                    plain.ping();
                }
            }, server.toString());
        }
    }
}
