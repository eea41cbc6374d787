package io.locksmith.integration;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;

/** Three leader candidates on one PostgreSQL server. */
class PostgresLeaderInitiatorTest extends LeaderInitiatorAcrossJvmsTest {

    @Override
    protected LockRegistryBehaviourTest.Server startServer() {
        ServerProcess postgres = StoreServers.postgres();
        return Servers.of(postgres,
                "postgres://" + StoreServers.POSTGRES_USER + "@127.0.0.1:" + postgres.port() + "/postgres");
    }
}
