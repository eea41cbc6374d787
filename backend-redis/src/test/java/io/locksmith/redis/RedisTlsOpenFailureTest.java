package io.locksmith.redis;

import io.locksmith.LockException;
import io.locksmith.LockStoreException;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Opening a client on a TLS-only redis-server fails, over each Redis client, when the server's certificate comes from
 * an authority the client does not trust, when the client does not use TLS, and when the password is wrong: each
 * failure names the store and TLS, and the password appears nowhere in it, its causes or their stack traces.
 */
class RedisTlsOpenFailureTest {

    static RedisTlsSupport tls;
    static TestCertificates otherAuthority;
    /** A certificate for another host name only, and a server that presents it. */
    static TestCertificates elsewhere;
    static RedisServer elsewhereServer;

    @BeforeAll
    static void startServer() {
        tls = new RedisTlsSupport();
        otherAuthority = TestCertificates.create("other");
        elsewhere = TestCertificates.createFor("elsewhere", "DNS:elsewhere.invalid", "serverAuth");
        elsewhereServer = RedisServer.startWithTls(elsewhere);
    }

    @AfterAll
    static void stopServer() {
        if (tls != null) {
            tls.close();
        }
        if (elsewhereServer != null) {
            elsewhereServer.close();
        }
        for (TestCertificates files : new TestCertificates[] {otherAuthority, elsewhere}) {
            if (files != null) {
                ServerProcess.deleteRecursively(files.dir());
            }
        }
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void aCertificateThatDoesNotNameTheHostFailsTheOpenThoughItsAuthorityIsTrusted(String client) {
        String uri = "rediss://" + elsewhereServer.address() + "?timeout=1s&client=" + client + "&trustStore="
                + elsewhere.caCert();
        LockStoreException error = assertThrows(LockStoreException.class, () -> RedisTlsSupport.open(uri).close());
        assertTrue(error.getMessage().contains("rediss://" + elsewhereServer.address()), error.getMessage());
        assertTrue(error.getMessage().contains("TLS handshake failed"), error.getMessage());
        assertTrue(error.getMessage().contains("127.0.0.1 found"), error.getMessage());
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void aCertificateFromAnotherAuthorityFailsTheOpenNamingTheStoreAndTls(String client) {
        LockStoreException error = assertThrows(LockStoreException.class,
                () -> RedisTlsSupport.open(tls.uri(RedisAclSupport.PASSWORD, otherAuthority, client) + "&timeout=1s").close());
        assertNamesTheStore(error, "rediss://", client);
        assertTrue(error.getMessage().contains("TLS"), error.getMessage());
        assertTrue(error.getMessage().contains(otherAuthority.caCert().toString()), error.getMessage());
        RedisTlsSupport.assertNoSecret(error, RedisAclSupport.PASSWORD);
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void aClientWithoutTlsFailsTheOpenNamingTheStore(String client) {
        String uri = "redis://" + RedisAclSupport.USER + ":" + RedisAclSupport.PASSWORD + "@" + tls.server.address()
                + "?timeout=1s&client=" + client;
        LockStoreException error = assertThrows(LockStoreException.class, () -> RedisTlsSupport.open(uri).close());
        assertNamesTheStore(error, "redis://", client);
        RedisTlsSupport.assertNoSecret(error, RedisAclSupport.PASSWORD);
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void aWrongPasswordFailsTheOpenNamingTheStoreAndTheUser(String client) {
        String wrong = "Wr0ng-" + RedisAclSupport.PASSWORD;
        LockException error = assertThrows(LockException.class,
                () -> RedisTlsSupport.open(tls.uri(wrong, tls.certificates, client) + "&timeout=1s").close());
        assertNamesTheStore(error, "rediss://", client);
        assertTrue(error.getMessage().contains("WRONGPASS"), error.getMessage());
        RedisTlsSupport.assertNoSecret(error, wrong);
    }

    private static void assertNamesTheStore(LockException error, String scheme, String client) {
        assertTrue(error.getMessage().contains(scheme + tls.server.address() + "/0 (" + client + ")"), error.getMessage());
    }
}
