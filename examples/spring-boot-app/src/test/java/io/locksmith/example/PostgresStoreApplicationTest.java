package io.locksmith.example;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.Test;

/**
 * The same application and the same checks as {@link MemStoreApplicationTest}, on a real PostgreSQL server: only
 * the configuration changes (the {@code postgres} profile's {@code application-postgres.yml}).
 */
class PostgresStoreApplicationTest {

    @Test
    void shipsOrdersUnderTheLockAndExposesMetricsAndHealthOnPostgres() throws Exception {
        try (ServerProcess postgres = StoreServers.postgres()) {
            OrderApplicationScenario.runAndCheck("postgres", "--spring.profiles.active=postgres",
                    "--postgres.port=" + postgres.port(), "--postgres.user=" + StoreServers.POSTGRES_USER);
        }
    }
}
