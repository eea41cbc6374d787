package io.locksmith.lockctl;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** lockctl against a real PostgreSQL server through the postgres backend. */
class PostgresEndToEndTest extends StoreEndToEnd {

    private static ServerProcess postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = StoreServers.postgres();
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    String uri() {
        return "postgres://" + StoreServers.POSTGRES_USER + "@127.0.0.1:" + postgres.port() + "/postgres";
    }

    @Test
    void inspect() {
        inspectShowsHoldersAndListsByPrefix();
    }

    @Test
    void doctor() {
        doctorPassesWithItsProbeLock();
    }

    /** The test server runs with fsync off and no idle-in-transaction time-out: doctor must say both. */
    @Test
    void doctorReadsTheServersSettings() {
        Run run = Run.lockctl("doctor", "--uri", uri(), "--timeout", "5s");

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        assertTrue(run.out().contains("[OK  ] postgres version: PostgreSQL 1"), run.both());
        assertTrue(run.out().contains("[OK  ] postgres rights: the role may take, renew and release locks"), run.both());
        assertTrue(run.out().contains("[WARN] postgres durability: fsync=off"), run.both());
        assertTrue(run.out().contains("[WARN] postgres idle_in_transaction_session_timeout: 0 (off)"), run.both());
        assertTrue(run.out().contains("postgres clock: server clock is"), run.both());
    }

    @Test
    void tck() {
        tckRulesPass();
    }

    @Test
    void bench() {
        benchRuns();
    }
}
