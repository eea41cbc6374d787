package io.locksmith.postgres;

import io.locksmith.tck.PrimitivesTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The semaphore, read-write lock and election kit against a real PostgreSQL server. */
class PostgresPrimitivesTckTest extends PrimitivesTck {

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
}
