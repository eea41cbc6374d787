package io.locksmith.examples.memcached;

import io.locksmith.Capability;
import io.locksmith.LockClient;
import io.locksmith.tck.LockTck;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.EnumSet;
import java.util.Set;

/**
 * The kit class of the worked example (docs/TCK.md, "Writing a backend"): every rule of the lock contract against one
 * real memcached, started on a free loopback port for this class. It overrides every hook a store without sessions
 * has, so that no rule is skipped for a missing hook: the only skips are the capabilities memcached does not offer.
 */
class MemcachedLockTckTest extends LockTck {

    static ServerProcess server;

    @BeforeAll
    static void startServer() {
        server = StoreServers.memcached(); // fails with an install hint if memcached is missing, never skips
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    /** The store under test: the rules that open their own clients (through the kit's FaultInjector) use it too. */
    @Override
    protected String storeUri() {
        return "memcached://127.0.0.1:" + server.port();
    }

    /** A new client each call, through ServiceLoader (META-INF/services): what an application does. */
    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    /** What the provider's documentation promises (rule R8.11): fencing tokens, nothing else. */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return EnumSet.of(Capability.FENCING);
    }

    /** The lock's item disappears at once, as if memcached had expired it (rules R2.2, R6.4, R5.2). */
    @Override
    protected void expireBehindClientsBack(String lockName) {
        MemcachedTestServers.deleteLock(server, lockName);
    }

    /**
     * The kit's default timing: the shared client times every lease (the provider's {@code appliesTtl()} is false),
     * so memcached's whole seconds never decide a rule of this kit.
     */
    @Override
    protected TckTiming timing() {
        return TckTiming.defaults();
    }
}
