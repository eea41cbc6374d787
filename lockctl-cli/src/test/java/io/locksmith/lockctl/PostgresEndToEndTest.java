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
        // The harness's role is a superuser on a server without TLS.
        assertTrue(run.out().contains("[WARN] postgres privileges: a superuser bypasses every privilege"), run.both());
        assertTrue(run.out().contains("[WARN] postgres role identity: role locksmith, no password given"), run.both());
        assertTrue(run.out().contains("[WARN] postgres TLS: off: sslmode not set (the driver's default, prefer), and"
                + " this session is plain TCP (pg_stat_ssl)"), run.both());
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
