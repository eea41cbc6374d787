package io.locksmith.zookeeper;

import io.locksmith.tck.server.SecretChecks;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockException;
import io.locksmith.LockStoreException;
import io.locksmith.tck.TckBase;
import io.locksmith.tck.TckTiming;
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

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kit's basic rules (exclusion, ownership, fencing, expiry, waiting by watches) over TLS with digest
 * authentication ({@code zookeeper://user:password@host/base?tls=true&trustStore=ca.crt}), against a ZooKeeper server
 * (its own JVM, {@code ZooKeeperServerMain}) that listens only with TLS ({@code secureClientPort}, Netty) on a
 * certificate the harness made. And the failures at open: a certificate from an authority the client does not trust
 * and a client without TLS each fail naming the store and TLS, never the password; TLS options without {@code tls=true}
 * are refused before connecting.
 */
class ZooKeeperTlsKitTest extends TckBase implements ExclusionKit, OwnershipKit, FencingKit, ExpiryKit, WaitingKit {

    private static final String USER_AND_PASSWORD = "tls-app:Tls-zk-pw-7c1";
    private static final String BASE = "/locksmith-tls";

    private static TestCertificates certificates;
    private static TestCertificates otherAuthority;
    private static ServerProcess server;

    @BeforeAll
    static void startServer() throws IOException {
        certificates = TestCertificates.create("zookeeper");
        otherAuthority = TestCertificates.create("zookeeper-other");
        server = ZooKeeperTlsServer.start(certificates, "none");
        // The port opens before the server serves: the first client waits until it does.
        await("a first TLS session").atMost(Duration.ofSeconds(60)).ignoreException(LockStoreException.class)
                .until(() -> {
                    LockClient.open(uri(USER_AND_PASSWORD, trusting(certificates))).close();
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

    /**
     * The kit's clients' URI. A TLS session costs a handshake on both sides: on a loaded 2-core CI machine a first
     * session took over 3 s (R5.2 failed to open its client once at connectionTimeout=3s), so the bound is generous.
     */
    private static String uri(String userAndPassword, String tls) {
        return uri(userAndPassword, tls, "10s");
    }

    /** A URI for a client that must fail to connect: its wait is the time-out, so a short one. */
    private static String failingUri(String userAndPassword, String tls) {
        return uri(userAndPassword, tls, "3s");
    }

    private static String uri(String userAndPassword, String tls, String connectionTimeout) {
        return "zookeeper://" + userAndPassword + "@127.0.0.1:" + server.port() + BASE + "?connectionTimeout="
                + connectionTimeout + (tls.isEmpty() ? "" : "&" + tls);
    }

    private static String trusting(TestCertificates trusted) {
        return "tls=true&trustStore=" + trusted.caCert();
    }

    @Override
    protected String storeUri() {
        return uri(USER_AND_PASSWORD, trusting(certificates));
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    /** As {@link ZooKeeperTckTest}'s: twice the default timing, for a shared 2-core build machine. */
    @Override
    protected TckTiming timing() {
        return TckTiming.defaults().scaledBy(2);
    }

    @Test
    void aCertificateFromAnotherAuthorityFailsTheOpenNamingTlsNotThePassword() {
        LockStoreException error = assertThrows(LockStoreException.class,
                () -> LockClient.open(failingUri(USER_AND_PASSWORD, trusting(otherAuthority))).close());
        assertNamesTheStoreAndTlsNotThePassword(error);
    }

    @Test
    void aClientWithoutTlsFailsTheOpenNamingTheStoreNotThePassword() {
        LockStoreException error = assertThrows(LockStoreException.class,
                () -> LockClient.open(failingUri(USER_AND_PASSWORD, "")).close());
        assertTrue(error.getMessage().contains("127.0.0.1:" + server.port()), error.getMessage());
        assertNoPassword(error);
    }

    @Test
    void tlsOptionsWithoutTlsOrOnAMissingFileAreRefusedBeforeConnecting() {
        LockConfigurationException clear = assertThrows(LockConfigurationException.class,
                () -> LockClient.open(uri(USER_AND_PASSWORD, "trustStore=" + certificates.caCert())));
        assertTrue(clear.getMessage().contains("need tls=true"), clear.getMessage());
        LockConfigurationException missing = assertThrows(LockConfigurationException.class,
                () -> LockClient.open(uri(USER_AND_PASSWORD, "tls=true&trustStore=/no/such/ca.crt")));
        assertTrue(missing.getMessage().contains("not a readable file"), missing.getMessage());
        LockConfigurationException typo = assertThrows(LockConfigurationException.class,
                () -> LockClient.open(uri(USER_AND_PASSWORD, "tls=yes")));
        assertTrue(typo.getMessage().contains("'tls'"), typo.getMessage());
        assertNoPassword(clear);
    }

    private static void assertNamesTheStoreAndTlsNotThePassword(LockException error) {
        assertTrue(error.getMessage().contains("zookeeper://tls-app@127.0.0.1:" + server.port() + BASE + " (TLS)"),
                error.getMessage());
        assertTrue(error.getMessage().contains("trustStore holds the authority"), error.getMessage());
        assertNoPassword(error);
    }

    private static void assertNoPassword(Throwable error) {
        SecretChecks.assertNoSecret(error, USER_AND_PASSWORD.split(":")[1]);
    }
}
