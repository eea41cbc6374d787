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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The kit's basic rules (exclusion, ownership, fencing, expiry, waiting by pub/sub) through one Redis client over
 * mutual TLS: a TLS-only redis-server that requires a client certificate ({@code tls-auth-clients yes}), the client
 * trusting the harness's authority with {@code trustStore=} (host name checked) and sending a certificate of it with
 * {@code keyStore=} (certificate and key in one PEM file), as the user of the documented ACL. A subclass per client
 * names it. The one-node TLS kits without a client certificate were folded into these: Jedis runs the whole kit over
 * TLS ({@link RedisAclTckTest}), and Redisson and Lettuce connect over TLS without one on Sentinel
 * ({@code *SentinelTlsAclKitTest}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RedisMutualTlsKit extends TckBase implements ExclusionKit, OwnershipKit, FencingKit, ExpiryKit,
        WaitingKit {

    private TestCertificates certificates;
    private Path keyStore;
    private RedisServer server;

    /** The {@code client=} of the URI: {@code jedis}, {@code redisson} or {@code lettuce}. */
    protected abstract String client();

    @BeforeAll
    void startServer() {
        certificates = TestCertificates.create("redis-mtls");
        try {
            keyStore = RedisServer.clientKeyStore(certificates, "locksmith-app");
            server = RedisServer.startWithMutualTls(certificates, keyStore);
            RedisAclSupport.setUser(server, RedisAclSupport.USER, RedisAclSupport.documentedRules());
        } catch (RuntimeException | Error e) {
            stopServer();
            throw e;
        }
    }

    @AfterAll
    void stopServer() {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            ServerProcess.deleteRecursively(certificates.dir());
        }
    }

    @Override
    protected String storeUri() {
        return "rediss://" + RedisAclSupport.USER + ":" + RedisAclSupport.PASSWORD + "@" + server.address() + "?client="
                + client() + "&trustStore=" + certificates.caCert() + "&keyStore=" + keyStore;
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        server.expireNow(lockName);
    }

    @Test
    void theServerRequiresAClientCertificate() {
        try (var jedis = server.jedis()) {
            assertEquals("yes", jedis.configGet("tls-auth-clients").get("tls-auth-clients"));
            assertEquals("0", jedis.configGet("port").get("port"));
        }
    }
}
