package io.locksmith.postgres;

import io.locksmith.LockClient;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.ListingTck;
import io.locksmith.tck.LockTck;
import io.locksmith.tck.RegistryTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/** The full TCK against a real PostgreSQL server. */
class PostgresLockTckTest extends LockTck {

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
    protected LockClient newClient() {
        return LockClient.open(postgres.uri(""));
    }

    @Override
    protected String storeUri() {
        return postgres.uri("");
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        postgres.expire("public", lockName);
    }

    /** The listing kit ({@link ListingTck}) on the same PostgreSQL server, started once for every kit of this class. */
    @Nested
    class Listing extends ListingTck {
        @Override
        protected LockClient newClient() {
            return LockClient.open(storeUri());
        }
    }

    /** The registry kit ({@link RegistryTck}) on the same PostgreSQL server. */
    @Nested
    class Registry extends RegistryTck {
        @Override
        protected LockProvider newProvider() {
            return new PostgresLockProviderFactory().create(LockUri.parse(storeUri()),
                    new ProviderContext("test", (grant, reason, cause) -> { }));
        }
    }
}
