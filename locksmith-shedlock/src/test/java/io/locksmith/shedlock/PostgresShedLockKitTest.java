package io.locksmith.shedlock;

import io.locksmith.LockClient;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's kit on one PostgreSQL server. */
class PostgresShedLockKitTest extends LocksmithShedLockKitTest {

    static ServerProcess postgres;
    static LockClient client;

    @BeforeAll
    static void start() {
        postgres = StoreServers.postgres();
        client = LockClient.open("postgres://" + StoreServers.POSTGRES_USER + "@127.0.0.1:" + postgres.port() + "/postgres");
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    protected LockClient client() {
        return client;
    }
}
