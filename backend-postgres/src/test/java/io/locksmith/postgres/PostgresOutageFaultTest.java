package io.locksmith.postgres;

import io.locksmith.LockClient;
import io.locksmith.tck.fault.OutageFaultTck;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The outage rules (R9.14, R9.15) on a PostgreSQL server, killed with SIGKILL (its backends with it) and restarted on
 * its port and data directory: pgjdbc reports the refused connection as a {@code PSQLException} caused by
 * {@code ConnectException}, under HikariCP's {@code SQLTransientConnectionException} (issue 29: a dead PostgreSQL
 * looked like a busy lock to a short wait).
 */
class PostgresOutageFaultTest extends OutageFaultTck {

    static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(postgres.uri("timeout=1s"));
    }

    @Override
    protected io.locksmith.tck.TckTiming timing() {
        // A slack of 5 s: the server's own start and HikariCP's connection back-off after a failed pool (1.4 s measured).
        return io.locksmith.tck.TckTiming.defaults().scaledBy(2.5);
    }

    @Override
    protected void killStore() {
        postgres.process.kill();
    }

    @Override
    protected void restartStore() {
        postgres.process.restart();
        StoreServers.awaitPostgresReady(postgres.process);
    }
}
