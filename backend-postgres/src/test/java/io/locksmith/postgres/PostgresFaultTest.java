package io.locksmith.postgres;

import io.locksmith.LockClient;
import io.locksmith.tck.fault.LockFaultTck;
import io.locksmith.tck.fault.TcpProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The fault kit against one PostgreSQL server: holders killed and frozen in child JVMs, a client cut off and a
 * reply lost through a {@link TcpProxy}, and the server itself killed (-9, with its backends) inside a holder's
 * critical section and restarted on the same data directory, as a crash and recovery would. A promoted
 * streaming replica (R9.7) is not run here: see docs/POSTGRES.md for what a failover guarantees.
 */
class PostgresFaultTest extends LockFaultTck {

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
        return LockClient.open(victimUri());
    }

    @Override
    protected String victimUri() {
        return postgres.uri("");
    }

    @Override
    protected String proxiedAddress() {
        return "127.0.0.1:" + postgres.port();
    }

    /** A statement time-out well under the kit's short lease, so a cut-off call fails in time. */
    @Override
    protected String uriThrough(TcpProxy proxy) {
        return "postgres://locksmith@127.0.0.1:" + proxy.port() + "/postgres?timeout=250ms";
    }

    /**
     * A crash of the only server and its recovery: every committed lock row and the sequence survive (the sequence
     * even jumps ahead), so exclusion and fencing hold across it; calls in between fail with store errors.
     */
    @Override
    protected void killStoreNode() {
        postgres.process.kill();
        postgres.process.restart();
    }
}
