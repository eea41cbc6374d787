package io.locksmith.postgres;

import io.locksmith.LockClient;
import io.locksmith.tck.ListingTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Listing held locks by prefix on a real PostgreSQL server (lockctl inspect --prefix). */
class PostgresListingTest extends ListingTck {

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
}
