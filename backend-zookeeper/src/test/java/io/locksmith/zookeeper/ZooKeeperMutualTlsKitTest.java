package io.locksmith.zookeeper;

import io.locksmith.tck.server.SecretChecks;
import io.locksmith.LockClient;
import io.locksmith.LockStoreException;
import io.locksmith.tck.TckBase;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.kits.ExclusionKit;
import io.locksmith.tck.kits.FencingKit;
import io.locksmith.tck.kits.OwnershipKit;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kit's exclusion, ownership and fencing rules over mutual TLS: a ZooKeeper server that requires a client
 * certificate ({@code ssl.clientAuth=need}), the client giving one of the server's authority with {@code keyStore=}
 * (key and certificate in one PEM file) and digest credentials. And the failures at open: no client certificate, and
 * one from another authority, each naming the store and TLS, never the password.
 */
class ZooKeeperMutualTlsKitTest extends TckBase implements ExclusionKit, OwnershipKit, FencingKit {

    private static final String USER_AND_PASSWORD = "mtls-app:Mtls-zk-pw-3e8";
    private static final String BASE = "/locksmith-mtls";

    private static TestCertificates certificates;
    private static TestCertificates otherAuthority;
    private static Path keyStore;
    private static Path otherKeyStore;
    private static ServerProcess server;

    @BeforeAll
    static void startServer() throws IOException {
        certificates = TestCertificates.create("zookeeper-mtls");
        otherAuthority = TestCertificates.create("zookeeper-mtls-other");
        keyStore = ZooKeeperTlsServer.clientKeyStore(certificates, "mtls-app");
        otherKeyStore = ZooKeeperTlsServer.clientKeyStore(otherAuthority, "intruder");
        // tickTime=200 caps sessions at 20 ticks (4 s), and the client counts a lock held only while a sync through the
        // leader proved its session alive within a part of that: run beside ZooKeeperTlsKitTest (two server JVMs
        // handshaking on two cores), the first rule's lock was reported lost that way. These rules are not about
        // sessions: the client's own 15 s is granted.
        server = ZooKeeperTlsServer.start(certificates, "need", "maxSessionTimeout=15000");
        await("a first TLS session").atMost(Duration.ofSeconds(60)).ignoreException(LockStoreException.class)
                .until(() -> {
                    LockClient.open(uri(keyStore, "10s")).close();
                    return true;
                });
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

    /** With {@code clientKeyStore} null, no client certificate. */
    private static String uri(Path clientKeyStore, String connectionTimeout) {
        return "zookeeper://" + USER_AND_PASSWORD + "@127.0.0.1:" + server.port() + BASE + "?connectionTimeout="
                + connectionTimeout + "&tls=true&trustStore=" + certificates.caCert()
                + (clientKeyStore == null ? "" : "&keyStore=" + clientKeyStore);
    }

    /** As {@link ZooKeeperTlsKitTest}'s: a TLS handshake at load took over 3 s once, so a generous bound. */
    @Override
    protected String storeUri() {
        return uri(keyStore, "10s");
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    @Override
    protected TckTiming timing() {
        return TckTiming.defaults().scaledBy(2);
    }

    @Test
    void withoutAClientCertificateTheOpenFailsNamingTheStoreAndTls() {
        LockStoreException error = assertThrows(LockStoreException.class, () -> LockClient.open(uri(null, "3s")).close());
        assertNamesTheStoreAndTlsNotThePassword(error);
    }

    @Test
    void aClientCertificateFromAnotherAuthorityFailsTheOpenNamingTheStoreAndTls() {
        LockStoreException error = assertThrows(LockStoreException.class,
                () -> LockClient.open(uri(otherKeyStore, "3s")).close());
        assertNamesTheStoreAndTlsNotThePassword(error);
    }

    private static void assertNamesTheStoreAndTlsNotThePassword(LockStoreException error) {
        assertTrue(error.getMessage().contains("zookeeper://mtls-app@127.0.0.1:" + server.port() + BASE + " (TLS)"),
                error.getMessage());
        assertTrue(error.getMessage().contains("keyStore holds one they trust"), error.getMessage());
        SecretChecks.assertNoSecret(error, USER_AND_PASSWORD.split(":")[1]);
    }
}
