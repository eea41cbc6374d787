package io.locksmith.shedlock;

import io.locksmith.LockClient;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.UUID;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ShedLock's own published test kit ({@code shedlock-test-support} 6.6.1: the lock, unlock, time-out, lockAtLeastFor,
 * extend and fuzz tests) against {@link LocksmithLockProvider} on one store, which a subclass per store starts
 * ({@link #startServer()}) once for its tests. Each test gets a provider of its own name prefix: the kit uses the same
 * lock names in every test, and a lock one test keeps for {@code lockAtLeastFor} must not refuse the next test's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LocksmithShedLockKitTest extends AbstractExtensibleLockProviderIntegrationTest {

    /** A store server started for one test class, and the URI of a client on it. */
    protected interface Server extends AutoCloseable {
        String uri();

        @Override
        void close();
    }

    private Server server;
    private LockClient client;
    private LocksmithLockProvider provider;

    /** Starts the store under test. */
    protected abstract Server startServer();

    @BeforeAll
    void start() {
        server = startServer();
        client = LockClient.open(server.uri());
    }

    @AfterAll
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void freshNamespace() {
        provider = new LocksmithLockProvider(client, "shedlock-" + UUID.randomUUID() + ":");
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return provider;
    }

    @Override
    protected void assertLocked(String lockName) {
        assertTrue(client.inspect(provider.namePrefix() + lockName).isPresent(), "lock '" + lockName
                + "' is not held in " + client.describe());
    }

    /**
     * Free in the store within the shortest store lease (plus a scheduling slack): a lock whose
     * {@code lockAtMostFor} is shorter lives that long in the store, and on a store whose locks live with the session a
     * lock kept for {@code lockAtLeastFor} is released by the client at that time, one store call later.
     */
    @Override
    protected void assertUnlocked(String lockName) {
        String name = provider.namePrefix() + lockName;
        await("lock '" + lockName + "' free in " + client.describe())
                .atMost(provider.shortestStoreLease().plus(Duration.ofMillis(500)))
                .until(() -> client.inspect(name).isEmpty());
    }

    /** A server process of the test harness, as a {@link Server} whose URI is {@code uri}. */
    static Server of(io.locksmith.tck.server.ServerProcess process, String uri) {
        return new Server() {
            @Override
            public String uri() {
                return uri;
            }

            @Override
            public void close() {
                process.close();
            }
        };
    }
}
