package io.locksmith.redis;

import io.locksmith.tck.server.SecretChecks;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockException;
import io.locksmith.LockStoreException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A password rotated while the application runs, with {@code passwordFile} (docs/REDIS.md, "Rotating the password"),
 * through each client: the user's password is replaced ({@code ACL SETUSER ... resetpass >new}), which leaves open
 * connections logged in, and its connections are ended ({@code CLIENT KILL USER}), as a restart or a failover would;
 * the connections the client opens again read the file. The user has exactly the documented ACL.
 */
class RedisPasswordRotationTest {

    private static RedisServer server;

    private String user;
    private Path dir;
    private Path file;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void userWithPasswordFile() throws IOException {
        user = "rotating-" + System.nanoTime();
        String first = "First-pw-" + System.nanoTime();
        List<String> rules = RedisAclSupport.documentedRules();
        rules.replaceAll(rule -> rule.equals(">" + RedisAclSupport.PASSWORD) ? ">" + first : rule);
        RedisAclSupport.setUser(server, user, rules);
        dir = Files.createTempDirectory("locksmith-redis-secret-");
        file = dir.resolve("password");
        Files.writeString(file, first + "\n");
    }

    @AfterEach
    void removeFile() throws IOException {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
    }

    private String uri(String client) {
        return "redis://" + user + "@" + server.address() + "?client=" + client + "&passwordFile=" + file
                + "&lease=2s&timeout=1s";
    }

    /** Replaces the user's passwords with {@code password} and ends its connections. */
    private void rotateOnTheServer(String password) {
        try (var jedis = server.jedis()) {
            jedis.aclSetUser(user, "resetpass", ">" + password);
            jedis.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "KILL", "USER", user);
        }
    }

    private static String unique(String client) {
        return "rotation-" + client + "-" + System.nanoTime();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jedis", "lettuce", "redisson"})
    void passwordRotatedInTheFileAndOnTheServerKeepsTheHeldLockAndTakesNewOnes(String client) throws Exception {
        String name = unique(client);
        try (LockClient locks = LockClient.open(uri(client))) {
            assertTrue(locks.describe().contains("passwordFile=" + file), locks.describe());
            Lease held = locks.lock(name).acquire(Duration.ofSeconds(5));
            long token = held.fencingToken();
            String next = "Next-pw-" + System.nanoTime();
            Files.writeString(file, next);
            rotateOnTheServer(next);
            await("the holding outlives three lease times after the change").during(Duration.ofSeconds(6))
                    .atMost(Duration.ofSeconds(10)).until(held::isHeld);
            assertEquals(token, locks.inspect(name).orElseThrow().fencingToken());
            try (Lease other = locks.lock(name + "-after").acquire(Duration.ofSeconds(5))) {
                assertTrue(other.isHeld());
            }
            // A waiter is still woken by a release: the subscription connection logged in again too.
            try (LockClient second = LockClient.open(uri(client))) {
                var waiting = java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> second.lock(name).acquire(Duration.ofSeconds(10)));
                held.close();
                try (Lease taken = waiting.get(15, java.util.concurrent.TimeUnit.SECONDS)) {
                    assertTrue(taken.isHeld());
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jedis", "lettuce", "redisson"})
    void stalePasswordInTheFileFailsNamingTheStoreAndTheFileAndTheFileUpdatedLaterIsUsed(String client)
            throws Exception {
        String name = unique(client);
        String stale = Files.readString(file).strip();
        try (LockClient locks = LockClient.open(uri(client))) {
            Lease held = locks.lock(name).acquire(Duration.ofSeconds(5));
            String next = "Next-pw-" + System.nanoTime();
            rotateOnTheServer(next);
            await("the holding is reported lost").atMost(Duration.ofSeconds(20)).until(() -> !held.isHeld());
            held.close();
            LockStoreException refused = assertThrows(LockStoreException.class, () -> locks.inspect(name));
            assertTrue(refused.getMessage().contains("passwordFile=" + file), refused.getMessage());
            assertTrue(refused.getMessage().contains(server.address()), refused.getMessage());
            assertNoSecret(refused, stale, next);
            Files.writeString(file, next + "\n");
            try (Lease again = locks.lock(name).acquire(Duration.ofSeconds(10))) {
                assertTrue(again.isHeld());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jedis", "lettuce", "redisson"})
    void wrongPasswordInTheFileFailsTheOpenNamingTheFile(String client) throws Exception {
        String wrong = "Wr0ng-" + System.nanoTime();
        Files.writeString(file, wrong);
        LockStoreException e = assertThrows(LockStoreException.class, () -> LockClient.open(uri(client)));
        assertTrue(e.getMessage().contains("passwordFile=" + file), e.getMessage());
        assertNoSecret(e, wrong, wrong);
    }

    @Test
    void passwordFileWithAPasswordInTheUriIsRefused() {
        var e = assertThrows(io.locksmith.LockConfigurationException.class, () -> LockClient.open(
                "redis://app:Uri-secret@" + server.address() + "?passwordFile=" + file));
        assertTrue(e.getMessage().contains("has a password and parameter 'passwordFile'"), e.getMessage());
        assertFalse(e.getMessage().contains("Uri-secret"), e.getMessage());
    }

    private static void assertNoSecret(LockException e, String... secrets) {
        SecretChecks.assertNoSecret(e, secrets);
    }
}
