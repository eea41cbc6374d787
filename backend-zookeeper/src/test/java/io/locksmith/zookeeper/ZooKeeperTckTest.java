package io.locksmith.zookeeper;

import io.locksmith.LockClient;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.ListingTck;
import io.locksmith.tck.LockTck;
import io.locksmith.tck.RegistryTck;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/** The full TCK against one in-JVM ZooKeeper server. */
class ZooKeeperTckTest extends LockTck {

    private static EmbeddedZooKeeper server;
    private static ZooKeeperAdmin admin;

    @BeforeAll
    static void startServer() throws InterruptedException {
        server = EmbeddedZooKeeper.start();
        admin = new ZooKeeperAdmin(server.connectString(), ZooKeeperSettings.DEFAULT_BASE_PATH);
    }

    @AfterAll
    static void stopServer() {
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    /** The kit opens its own clients on this URI too: through its SPI fault injector, with a trace id source. */
    @Override
    protected String storeUri() {
        return server.uri();
    }

    /** Deletes the holder's node with another session, as an operator or a session expiry would. */
    /** Ends the provider's session on the server (R9.13). */
    @Override
    protected void endStoreSession(io.locksmith.spi.LockProvider storeProvider) {
        ZooKeeperAdmin.endSession((ZooKeeperLockProvider) storeProvider, server.connectString());
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        admin.dropHolder(lockName);
    }

    /**
     * Twice the default timing (an 800 ms short lease): the kit passes at the defaults on an idle machine, but
     * on a shared 2-core build machine the renewal thread can stall for longer than a 400 ms lease allows.
     */
    @Override
    protected TckTiming timing() {
        return TckTiming.defaults().scaledBy(2);
    }

    /** The listing kit ({@link ListingTck}) on the same in-JVM server, started once for every kit of this class. */
    @Nested
    class Listing extends ListingTck {
        @Override
        protected LockClient newClient() {
            return LockClient.open(storeUri());
        }
    }

    /** The registry kit ({@link RegistryTck}) on the same in-JVM server. */
    @Nested
    class Registry extends RegistryTck {
        @Override
        protected LockProvider newProvider() {
            return new ZooKeeperLockProviderFactory().create(LockUri.parse(storeUri()),
                    new ProviderContext("registry-test", (grant, reason, cause) -> { }));
        }
    }
}
