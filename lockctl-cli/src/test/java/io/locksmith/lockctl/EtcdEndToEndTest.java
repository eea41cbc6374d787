package io.locksmith.lockctl;

import io.locksmith.tck.server.ServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** lockctl against a real etcd server through the etcd backend. */
class EtcdEndToEndTest extends StoreEndToEnd {

    private static ServerProcess etcd;

    @BeforeAll
    static void startEtcd() throws IOException {
        etcd = Servers.etcd(Files.createTempDirectory("lockctl-etcd"));
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Override
    String uri() {
        return "etcd://127.0.0.1:" + etcd.port();
    }

    /** etcd grants leases of 2 s or more: the kit's sub-second leases are stretched. */
    @Override
    String[] tckExtraArgs() {
        return new String[] {"--scale", "3"};
    }

    @Test
    void inspect() {
        inspectShowsHoldersAndListsByPrefix();
    }

    @Test
    void doctor() {
        doctorPassesWithItsProbeLock();
    }

    /** The test member runs with --pre-vote=true, which doctor reads from its command line. */
    @Test
    void doctorReadsPreVote() {
        Run run = Run.lockctl("doctor", "--uri", uri(), "--timeout", "5s");
        assertTrue(run.out().matches("(?s).*\\[OK  \\] etcd http://127\\.0\\.0\\.1:\\d+ pre-vote: --pre-vote=true on the command line.*"),
                run.both());
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
