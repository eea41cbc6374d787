package io.locksmith.shedlock;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;

/** ShedLock's kit on one PostgreSQL server. */
class PostgresShedLockKitTest extends LocksmithShedLockKitTest {

    @Override
    protected Server startServer() {
        ServerProcess postgres = StoreServers.postgres();
        return of(postgres, "postgres://" + StoreServers.POSTGRES_USER + "@127.0.0.1:" + postgres.port() + "/postgres");
    }
}
