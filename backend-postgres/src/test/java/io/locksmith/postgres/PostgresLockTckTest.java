package io.locksmith.postgres;

import io.locksmith.LockClient;
import io.locksmith.tck.LockTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

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
}
