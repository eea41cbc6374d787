package io.locksmith.redis;

import io.locksmith.LockStoreException;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Opening a client on a redis-server that requires a client certificate ({@code tls-auth-clients yes}) fails, over
 * each Redis client, without {@code keyStore} and with a client certificate from an authority the server does not
 * trust: each failure names the store and TLS, and the password appears nowhere in it, its causes or their traces.
 */
class RedisMutualTlsOpenFailureTest {

    static TestCertificates certificates;
    static TestCertificates otherAuthority;
    static Path keyStore;
    static Path otherKeyStore;
    static RedisServer server;

    @BeforeAll
    static void startServer() {
        certificates = TestCertificates.create("redis-mtls");
        otherAuthority = TestCertificates.create("redis-other");
        keyStore = RedisServer.clientKeyStore(certificates, "locksmith-app");
        otherKeyStore = RedisServer.clientKeyStore(otherAuthority, "intruder");
        server = RedisServer.startWithMutualTls(certificates, keyStore);
        RedisAclSupport.setUser(server, RedisAclSupport.USER, RedisAclSupport.documentedRules());
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
        for (TestCertificates files : new TestCertificates[] {certificates, otherAuthority}) {
            if (files != null) {
                ServerProcess.deleteRecursively(files.dir());
            }
        }
    }

    private static String uri(String client) {
        return "rediss://" + RedisAclSupport.USER + ":" + RedisAclSupport.PASSWORD + "@" + server.address()
                + "?timeout=1s&client=" + client + "&trustStore=" + certificates.caCert();
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void noClientCertificateFailsTheOpenNamingTheStoreAndTls(String client) {
        LockStoreException error = assertThrows(LockStoreException.class, () -> RedisTlsSupport.open(uri(client)).close());
        assertNamesTheStoreAndTls(error, client);
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void aClientCertificateFromAnotherAuthorityFailsTheOpenNamingTheStoreAndTls(String client) {
        LockStoreException error = assertThrows(LockStoreException.class,
                () -> RedisTlsSupport.open(uri(client) + "&keyStore=" + otherKeyStore).close());
        assertNamesTheStoreAndTls(error, client);
        assertTrue(error.getMessage().contains("keyStore=" + otherKeyStore), error.getMessage());
    }

    private static void assertNamesTheStoreAndTls(LockStoreException error, String client) {
        assertTrue(error.getMessage().contains("rediss://" + server.address()), error.getMessage());
        assertTrue(error.getMessage().contains("(" + client + ")"), error.getMessage());
        assertTrue(error.getMessage().contains("TLS"), error.getMessage());
        RedisTlsSupport.assertNoSecret(error, RedisAclSupport.PASSWORD);
    }
}
