package io.locksmith.zookeeper;

import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;
import io.locksmith.Capability;
import io.locksmith.tck.StoreTck;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.EnumSet;
import java.util.Set;

/**
 * The full TCK against one in-JVM ZooKeeper server, and the primitives' kit (SemaphoreKit, ReadWriteKit, ElectionKit)
 * on the same server, through an authenticated client ({@code user:password@}, ZooKeeper digest): every node it makes
 * carries its identity's ACL ({@code CREATOR_ALL_ACL}), and every rule holds as without one (the ensemble's kit runs
 * without credentials). The tampering rules' admin session authenticates as the same user, as an operator of that
 * application would.
 */
class ZooKeeperTckTest extends StoreTck implements SemaphoreKit, ReadWriteKit, ElectionKit {

    /**
     * What docs/ZOOKEEPER.md promises of a single server and of an ensemble: fencing by the node's zxid, watches for
     * release notification, a fair queue that inspect lists, the session bound and batch renewal (R8.11).
     */
    static final Set<Capability> CAPABILITIES = EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION,
            Capability.FAIR, Capability.SESSION_BOUND, Capability.INSPECT_WAITERS, Capability.BATCH_RENEW);

    /** What an authenticated client adds (docs/ZOOKEEPER.md, SECURITY.md): its lock nodes are its identity's alone. */
    static final Set<Capability> AUTHENTICATED_CAPABILITIES = EnumSet.of(Capability.FENCING,
            Capability.RELEASE_NOTIFICATION, Capability.FAIR, Capability.SESSION_BOUND, Capability.INSPECT_WAITERS,
            Capability.BATCH_RENEW, Capability.ACCESS_CONTROL);

    private static final String USER_AND_PASSWORD = "lock-app:kit-pw";
    private static EmbeddedZooKeeper server;
    private static ZooKeeperAdmin admin;

    @BeforeAll
    static void startServer() throws InterruptedException {
        server = EmbeddedZooKeeper.start();
        admin = new ZooKeeperAdmin(server.connectString(), ZooKeeperSettings.DEFAULT_BASE_PATH, USER_AND_PASSWORD);
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

    /** Every client of the kits is opened on this URI, the kit's own through its SPI fault injector too. */
    @Override
    protected String storeUri() {
        return "zookeeper://" + USER_AND_PASSWORD + "@" + server.connectString() + ZooKeeperSettings.DEFAULT_BASE_PATH;
    }

    /** Ends the provider's session on the server (R9.13). */
    @Override
    protected void endStoreSession(io.locksmith.spi.LockProvider storeProvider) {
        ZooKeeperAdmin.endSession((ZooKeeperLockProvider) storeProvider, server.connectString());
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        admin.dropHolder(lockName);
    }

    /** What docs/ZOOKEEPER.md promises of an authenticated client (R8.11). */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return AUTHENTICATED_CAPABILITIES;
    }

    /**
     * R2.6: a raw ZooKeeper handle as the application's digest identity, another user's, the application's user with
     * a wrong password (to ZooKeeper simply another identity), or none.
     */
    @Override
    protected io.locksmith.tck.RawStoreSession rawStoreSession(io.locksmith.tck.RawStoreSession.Identity identity)
            throws Exception {
        String userAndPassword = switch (identity) {
            case APPLICATION -> USER_AND_PASSWORD;
            case OTHER_USER -> "intruder:intruder-pw";
            case WRONG_PASSWORD -> "lock-app:wrong-pw";
            case NO_CREDENTIALS -> null;
        };
        return new ZooKeeperRawSession(server.connectString(), ZooKeeperSettings.DEFAULT_BASE_PATH, userAndPassword,
                admin);
    }

    /**
     * Twice the default timing (an 800 ms short lease): the kit passes at the defaults on an idle machine, but
     * on a shared 2-core build machine the renewal thread can stall for longer than a 400 ms lease allows.
     */
    @Override
    protected TckTiming timing() {
        return TckTiming.defaults().scaledBy(2);
    }
}
