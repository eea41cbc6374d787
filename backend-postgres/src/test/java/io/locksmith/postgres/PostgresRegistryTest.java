package io.locksmith.postgres;

import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.RegistryTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Registry records (used by the migration phase guard) on a real PostgreSQL server. */
class PostgresRegistryTest extends RegistryTck {

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
    protected LockProvider newProvider() {
        return new PostgresLockProviderFactory().create(LockUri.parse(postgres.uri("")),
                new ProviderContext("test", (grant, reason, cause) -> { }));
    }
}
