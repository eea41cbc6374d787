package io.locksmith.etcd;

import io.locksmith.tck.server.SecretChecks;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockException;
import io.locksmith.LockStoreException;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * etcd over TLS with client certificates and authentication on (docs/ETCD.md, "TLS" and "Authentication and role
 * permissions"): what works, and the clear errors of what does not, none of them holding a password.
 */
class EtcdSecurityTest {

    private static TestCertificates certificates;
    private static TestCertificates otherAuthority;
    private static SecureEtcd etcd;
    private static Client root;

    @BeforeAll
    static void start() {
        certificates = TestCertificates.create("etcd");
        otherAuthority = TestCertificates.create("etcd-other");
        etcd = SecureEtcd.start(certificates, true, 300);
        root = etcd.root();
    }

    @AfterAll
    static void stop() {
        if (root != null) {
            root.close();
        }
        if (etcd != null) {
            etcd.close();
        }
        for (TestCertificates files : new TestCertificates[] {certificates, otherAuthority}) {
            if (files != null) {
                ServerProcess.deleteRecursively(files.dir());
            }
        }
    }

    private static String unique(TestInfo test) {
        return test.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime();
    }

    @Test
    void lockUserTakesAndReleasesOverMutualTls(TestInfo test) {
        String name = unique(test);
        try (LockClient client = LockClient.open(etcd.lockUri("lease=2s"))) {
            assertTrue(client.describe().startsWith("etcds://" + SecureEtcd.LOCK_USER + "@"), client.describe());
            assertFalse(client.describe().contains(SecureEtcd.LOCK_PASSWORD), client.describe());
            try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
                assertTrue(lease.isHeld());
                assertEquals(1, holderKeys(name).size());
            }
            assertEquals(0, holderKeys(name).size());
        }
    }

    @Test
    void passwordFromTheEnvironmentVariableThatPasswordEnvNames(TestInfo test) {
        // backend-etcd's pom sets LOCKSMITH_TEST_ETCD_PASSWORD for the tests to the lock user's password.
        assertEquals(SecureEtcd.LOCK_PASSWORD, System.getenv("LOCKSMITH_TEST_ETCD_PASSWORD"));
        String uri = etcd.uri(SecureEtcd.LOCK_USER, "x", "passwordEnv=LOCKSMITH_TEST_ETCD_PASSWORD")
                .replace(SecureEtcd.LOCK_USER + ":x@", SecureEtcd.LOCK_USER + "@");
        try (LockClient client = LockClient.open(uri);
             Lease lease = client.lock(unique(test)).acquire(Duration.ofSeconds(5))) {
            assertTrue(lease.isHeld());
        }
        LockConfigurationException unset = assertThrows(LockConfigurationException.class, () -> LockClient.open(
                uri.replace("LOCKSMITH_TEST_ETCD_PASSWORD", "LOCKSMITH_TEST_UNSET_" + System.nanoTime())));
        assertTrue(unset.getMessage().contains("passwordEnv"), unset.getMessage());
    }

    @Test
    void wrongPasswordFailsTheOpenNamingTheUserNeverThePassword() {
        String wrong = "Wr0ng-Pa55-" + System.nanoTime();
        LockStoreException e = assertThrows(LockStoreException.class,
                () -> LockClient.open(etcd.uri(SecureEtcd.LOCK_USER, wrong, "timeout=3s")));
        assertMessage(e, "refused the login of user '" + SecureEtcd.LOCK_USER + "'", wrong);
    }

    @Test
    void unknownUserFailsTheOpenNamingTheUser() {
        String password = "S3cret-" + System.nanoTime();
        LockStoreException e = assertThrows(LockStoreException.class,
                () -> LockClient.open(etcd.uri("nobody", password, "timeout=3s")));
        assertMessage(e, "refused the login of user 'nobody'", password);
    }

    @Test
    void serverCertificateOfAnotherAuthorityFailsTheOpenAsATlsFailure() {
        String uri = etcd.lockUri("timeout=3s").replace("trustStore=" + certificates.caCert(),
                "trustStore=" + otherAuthority.caCert());
        LockStoreException e = assertThrows(LockStoreException.class, () -> LockClient.open(uri));
        assertMessage(e, "TLS handshake failed", SecureEtcd.LOCK_PASSWORD);
        assertTrue(e.getMessage().contains("trustStore=" + otherAuthority.caCert()), e.getMessage());
    }

    @Test
    void serverCertificateThatDoesNotNameTheHostOfTheUriIsRefused(TestInfo test) {
        TestCertificates localhostOnly = certificates.withServerCertificateFor("localhost-only", "DNS:localhost");
        int clientPort = io.locksmith.tck.server.FreePorts.next();
        int peerPort = io.locksmith.tck.server.FreePorts.next();
        java.nio.file.Path dataDir = io.locksmith.tck.server.StoreServers.tempDir("etcd-misnamed-" + clientPort);
        try (ServerProcess misnamed = io.locksmith.tck.server.StoreServers.etcdMember("misnamed", clientPort, peerPort,
                "misnamed=http://127.0.0.1:" + peerPort, dataDir, localhostOnly, false, List.of())) {
            String trust = ":" + clientPort + "?timeout=3s&trustStore=" + certificates.caCert();
            LockStoreException e = assertThrows(LockStoreException.class,
                    () -> LockClient.open("etcds://127.0.0.1" + trust));
            assertMessage(e, "TLS handshake failed", SecureEtcd.LOCK_PASSWORD);
            assertTrue(e.getMessage().contains("names the host"), e.getMessage());
            // The same certificate and server, reached by the name the certificate gives: accepted.
            try (LockClient byName = LockClient.open("etcds://localhost" + trust);
                 Lease lease = byName.lock(unique(test)).acquire(Duration.ofSeconds(5))) {
                assertTrue(lease.isHeld());
            }
        } finally {
            ServerProcess.deleteRecursively(dataDir);
        }
    }

    @Test
    void clientWithoutCertificateIsRefusedUnderClientCertAuth() {
        String uri = etcd.lockUri("timeout=3s").replace("&clientCert=" + etcd.clientCert().cert(), "")
                .replace("&clientKey=" + etcd.clientCert().key(), "");
        assertFalse(uri.contains("clientCert"), uri);
        LockStoreException e = assertThrows(LockStoreException.class, () -> LockClient.open(uri));
        assertMessage(e, "TLS handshake failed", SecureEtcd.LOCK_PASSWORD);
        assertTrue(e.getMessage().contains("clientCert"), e.getMessage());
    }

    @Test
    void userWhoseRoleLacksTheLockPrefixFailsTheOpenNamingThePermission() {
        LockConfigurationException e = assertThrows(LockConfigurationException.class,
                () -> LockClient.open(etcd.uri(SecureEtcd.OTHER_USER, SecureEtcd.OTHER_PASSWORD, "timeout=3s")));
        assertMessage(e, "may not read the keys under the lock prefix '/locksmith/'", SecureEtcd.OTHER_PASSWORD);
        assertTrue(e.getMessage().contains("readwrite /locksmith/"), e.getMessage());
    }

    @Test
    void userWithOnlyReadOnTheLockPrefixFailsTheOpenNamingWrite() throws Exception {
        var auth = root.getAuthClient();
        auth.roleAdd(SecureEtcd.bytes("read-only")).get(10, TimeUnit.SECONDS);
        byte[] end = EtcdSettings.DEFAULT_PREFIX.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        end[end.length - 1]++;
        auth.roleGrantPermission(SecureEtcd.bytes("read-only"), SecureEtcd.bytes(EtcdSettings.DEFAULT_PREFIX),
                io.etcd.jetcd.ByteSequence.from(end), io.etcd.jetcd.auth.Permission.Type.READ).get(10, TimeUnit.SECONDS);
        auth.userAdd(SecureEtcd.bytes("reader"), SecureEtcd.bytes("reader-Pa55")).get(10, TimeUnit.SECONDS);
        auth.userGrantRole(SecureEtcd.bytes("reader"), SecureEtcd.bytes("read-only")).get(10, TimeUnit.SECONDS);
        LockConfigurationException e = assertThrows(LockConfigurationException.class,
                () -> LockClient.open(etcd.uri("reader", "reader-Pa55", "timeout=3s")));
        assertMessage(e, "may not write the keys under the lock prefix '/locksmith/'", "reader-Pa55");
    }

    @Test
    void anotherRoleCanNeitherDeleteNorTakeAHeldLock(TestInfo test) throws Exception {
        String name = unique(test);
        try (LockClient holder = LockClient.open(etcd.lockUri("lease=2s"));
             Lease lease = holder.lock(name).acquire(Duration.ofSeconds(5));
             Client other = etcd.client(SecureEtcd.OTHER_USER, SecureEtcd.OTHER_PASSWORD)) {
            KeyValue key = holderKeys(name).get(0);
            ExecutionException deleted = assertThrows(ExecutionException.class,
                    () -> other.getKVClient().delete(key.getKey()).get(10, TimeUnit.SECONDS));
            assertTrue(deleted.getCause().getMessage().contains("permission denied"), deleted.getCause().getMessage());
            ExecutionException revoked = assertThrows(ExecutionException.class,
                    () -> other.getLeaseClient().revoke(key.getLease()).get(10, TimeUnit.SECONDS));
            assertTrue(revoked.getCause().getMessage().contains("permission denied"), revoked.getCause().getMessage());
            // etcd 3.4 checks no permission on lease keep-alives (docs/SECURITY.md, "Leases"): a user of another role
            // that learns the holder's lease id can keep it alive, so delay a crashed holder's release, though never
            // take or free the lock.
            assertTrue(other.getLeaseClient().keepAliveOnce(key.getLease()).get(10, TimeUnit.SECONDS).getTTL() > 0,
                    "etcd 3.4 lets any user keep any lease alive");
            // Its Locksmith client, on the lock prefix, cannot even open.
            assertThrows(LockConfigurationException.class, () -> LockClient.open(
                    etcd.uri(SecureEtcd.OTHER_USER, SecureEtcd.OTHER_PASSWORD, "timeout=3s")));
            assertTrue(lease.isHeld());
            assertEquals(key.getCreateRevision(), holderKeys(name).get(0).getCreateRevision());
        }
    }

    /**
     * A password changed while a client runs: etcd voids the user's tokens at once, and the client cannot log in
     * again with the password it opened with. Its holding ends as a reported loss (never silently), its next call
     * fails without naming either password, and a client opened with the new password takes the lock. docs/ETCD.md
     * ("Rotating a password") says how to rotate without the gap: a second user with the same role.
     */
    @Test
    void passwordChangedWhileAClientHoldsEndsItsHoldingAsALossAndTheNewPasswordWorks(TestInfo test) throws Exception {
        String name = unique(test);
        String user = "rotating-" + System.nanoTime();
        String before = "Before-pw-" + System.nanoTime();
        String after = "After-pw-" + System.nanoTime();
        var auth = root.getAuthClient();
        auth.userAdd(SecureEtcd.bytes(user), SecureEtcd.bytes(before)).get(10, TimeUnit.SECONDS);
        auth.userGrantRole(SecureEtcd.bytes(user), SecureEtcd.bytes(SecureEtcd.LOCK_ROLE)).get(10, TimeUnit.SECONDS);
        // timeout=5s: at load 15-20 on 2 cores the refused re-login did not end within 2 s (etcd checks a password with
        // bcrypt, slow on purpose), and the inspect below failed with "did not answer" instead of the refusal it is
        // about; seen on main too.
        try (LockClient old = LockClient.open(etcd.uri(user, before, "lease=2s&timeout=5s"))) {
            Lease held = old.lock(name).acquire(Duration.ofSeconds(5));
            auth.userChangePassword(SecureEtcd.bytes(user), SecureEtcd.bytes(after)).get(10, TimeUnit.SECONDS);
            org.awaitility.Awaitility.await("the old client reports its holding lost").atMost(Duration.ofSeconds(20))
                    .until(() -> !held.isHeld());
            LockStoreException refused = assertThrows(LockStoreException.class, () -> old.inspect(name));
            assertMessage(refused, "refused the login of the client's user", before);
            assertTrue(refused.getMessage().contains("password may have changed"), refused.getMessage());
            assertFalse(trace(refused).contains(after), trace(refused));
            try (LockClient renewed = LockClient.open(etcd.uri(user, after, "lease=2s"));
                 Lease taken = renewed.lock(name).acquire(Duration.ofSeconds(10))) {
                assertTrue(taken.isHeld());
            }
            held.close();
        }
    }

    private static String trace(Throwable e) {
        return SecretChecks.fullText(e);
    }

    /** The keys of the lock's holder and waiters, read as root. */
    private static List<KeyValue> holderKeys(String name) {
        try {
            return root.getKVClient().get(new EtcdKeys(EtcdSettings.DEFAULT_PREFIX).directory(name),
                    GetOption.builder().isPrefix(true).build()).get(10, TimeUnit.SECONDS).getKvs();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code expected} is in the message; {@code secret} in no message of the whole cause chain, nor in suppressed. */
    static void assertMessage(LockException e, String expected, String secret) {
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertTrue(e.getMessage().contains("127.0.0.1"), "names the store: " + e.getMessage());
        java.io.StringWriter trace = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(trace));
        assertFalse(trace.toString().contains(secret), trace.toString());
    }
}
