package io.locksmith.postgres;

import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;
import io.locksmith.Capability;
import io.locksmith.tck.StoreTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.EnumSet;
import java.util.Set;

/**
 * The full TCK against a real PostgreSQL server;
 * and the primitives' kit (SemaphoreKit, ReadWriteKit, ElectionKit) on the same server.
 */
class PostgresLockTckTest extends StoreTck implements SemaphoreKit, ReadWriteKit, ElectionKit {

    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    protected String storeUri() {
        return postgres.uri("");
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        postgres.expire("public", lockName);
    }

    /**
     * What docs/POSTGRES.md promises (R8.11): fencing tokens, release notification by LISTEN/NOTIFY and batch
     * renewal in one statement; not fair, no queue.
     */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION, Capability.BATCH_RENEW);
    }
}
