package io.locksmith.etcd;

import io.locksmith.tck.server.SecretChecks;
import io.etcd.jetcd.Client;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockStoreException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A password rotated while the application runs, with {@code passwordFile} (docs/ETCD.md, "Rotating a password"):
 * etcd voids the user's tokens when its password changes, and the client's next login reads the file again.
 */
class EtcdPasswordRotationTest {

    private static SecureEtcd etcd;
    private static Client root;

    private String user;
    private Path dir;
    private Path file;

    @BeforeAll
    static void start() {
        etcd = SecureEtcd.start(null, false, 300);
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
    }

    @BeforeEach
    void userWithPasswordFile(TestInfo test) throws Exception {
        user = "rotating-" + System.nanoTime();
        dir = Files.createTempDirectory("locksmith-etcd-secret-");
        file = dir.resolve("password");
        String first = "First-pw-" + System.nanoTime();
        Files.writeString(file, first + "\n");
        root.getAuthClient().userAdd(SecureEtcd.bytes(user), SecureEtcd.bytes(first)).get(10, TimeUnit.SECONDS);
        root.getAuthClient().userGrantRole(SecureEtcd.bytes(user), SecureEtcd.bytes(SecureEtcd.LOCK_ROLE))
                .get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void removeFile() throws IOException {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
    }

    /**
     * A lease and a time-out long enough for a login: etcd checks a password with bcrypt (slow on purpose), and with a
     * 2 s lease a renewal that had to log in again first ended after the lease at load 20 on 2 cores.
     */
    private String uri() {
        return "etcd://" + user + "@127.0.0.1:" + etcd.server().port() + "?passwordFile=" + file
                + "&lease=5s&timeout=4s";
    }

    private void changePassword(String password) throws Exception {
        root.getAuthClient().userChangePassword(SecureEtcd.bytes(user), SecureEtcd.bytes(password))
                .get(10, TimeUnit.SECONDS);
    }

    private static String unique(TestInfo test) {
        return test.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime();
    }

    /**
     * The file is updated first, then the user's password: the renewals after the change log in again with the new
     * password, so the held lock stays held through several lease times, and the same client takes new locks.
     */
    @Test
    void passwordRotatedInTheFileThenOnTheServerKeepsTheHeldLockAndTakesNewOnes(TestInfo test) throws Exception {
        String name = unique(test);
        try (LockClient client = LockClient.open(uri())) {
            assertTrue(client.describe().contains("passwordFile=" + file), client.describe());
            Lease held = client.lock(name).acquire(Duration.ofSeconds(5));
            long token = held.fencingToken();
            String next = "Next-pw-" + System.nanoTime();
            Files.writeString(file, next);
            changePassword(next);
            await("the holding outlives two lease times after the change").during(Duration.ofSeconds(10))
                    .atMost(Duration.ofSeconds(15)).until(held::isHeld);
            assertEquals(token, client.inspect(name).orElseThrow().fencingToken());
            try (Lease other = client.lock(name + "-after").acquire(Duration.ofSeconds(5))) {
                assertTrue(other.isHeld());
            }
            held.close();
        }
    }

    /**
     * The server's password changes before the file: the re-login fails naming the store and the file (never a
     * password), and the holding ends as a reported loss; once the file holds the new password, the same client locks
     * again without a restart.
     */
    @Test
    void stalePasswordInTheFileFailsNamingTheFileAndTheFileUpdatedLaterIsUsed(TestInfo test) throws Exception {
        String name = unique(test);
        String stale = Files.readString(file).strip();
        try (LockClient client = LockClient.open(uri())) {
            Lease held = client.lock(name).acquire(Duration.ofSeconds(5));
            String next = "Next-pw-" + System.nanoTime();
            changePassword(next);
            await("the holding is reported lost").atMost(Duration.ofSeconds(30)).until(() -> !held.isHeld());
            // A call in flight while jetcd's failed login settles may time out instead ("did not answer"): the next
            // one meets the refused login.
            LockStoreException refused = await("a call fails with the refused login").atMost(Duration.ofSeconds(15))
                    .until(() -> assertThrows(LockStoreException.class, () -> client.inspect(name)),
                            e -> e.getMessage().contains("refused the login"));
            assertTrue(refused.getMessage().contains("refused the login of the client's user"), refused.getMessage());
            assertTrue(refused.getMessage().contains("passwordFile=" + file), refused.getMessage());
            assertTrue(refused.getMessage().contains("127.0.0.1:" + etcd.server().port()), refused.getMessage());
            String trace = trace(refused);
            assertFalse(trace.contains(stale), trace);
            assertFalse(trace.contains(next), trace);
            held.close();
            Files.writeString(file, next + "\n");
            try (Lease again = client.lock(name).acquire(Duration.ofSeconds(10))) {
                assertTrue(again.isHeld());
            }
        }
    }

    @Test
    void wrongPasswordInTheFileFailsTheOpenNamingTheFile() throws Exception {
        String wrong = "Wr0ng-" + System.nanoTime();
        Files.writeString(file, wrong);
        LockStoreException e = assertThrows(LockStoreException.class, () -> LockClient.open(uri()));
        assertTrue(e.getMessage().contains("refused the login of user '" + user + "'"), e.getMessage());
        assertTrue(e.getMessage().contains("the password file '" + file + "'"), e.getMessage());
        assertFalse(trace(e).contains(wrong), trace(e));
    }

    private static String trace(Throwable e) {
        return SecretChecks.fullText(e);
    }
}
