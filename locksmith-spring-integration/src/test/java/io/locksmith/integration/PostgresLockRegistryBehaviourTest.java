package io.locksmith.integration;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;

/** The registry's behaviours on one PostgreSQL server. */
class PostgresLockRegistryBehaviourTest extends LockRegistryBehaviourTest {

    @Override
    protected Server startServer() {
        ServerProcess postgres = StoreServers.postgres();
        return Servers.of(postgres,
                "postgres://" + StoreServers.POSTGRES_USER + "@127.0.0.1:" + postgres.port() + "/postgres");
    }
}
