package io.locksmith.lockctl;

import io.locksmith.tck.server.ServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

    /**
     * Issue 14, item 6: LOCKCTL.md's command, {@code lockctl tck --uri etcd://...} without a scale, on an etcd with
     * the default election time-out (1 s, so leases of 2 s or more): the kit takes its scale from the store's
     * minimum lease and passes, the expiry rules included. A scale whose short lease etcd cannot grant is a usage
     * error naming the scale that works (it used to end as 8 required rules "violated").
     */
    @Test
    void tckWithoutAScaleFitsAnEtcdWithDefaultTimings() throws IOException {
        int clientPort = io.locksmith.tck.server.FreePorts.next();
        int peerPort = io.locksmith.tck.server.FreePorts.next();
        java.nio.file.Path dir = Files.createTempDirectory("lockctl-etcd-defaults");
        String binary = ServerProcess.requireBinary("etcd", io.locksmith.tck.server.StoreServers.ETCD_INSTALL_HINT);
        try (ServerProcess defaults = ServerProcess.start("etcd-defaults-" + clientPort, java.util.List.of(binary,
                "--name", "defaults", "--data-dir", dir.resolve("data").toString(),
                "--listen-client-urls", "http://127.0.0.1:" + clientPort,
                "--advertise-client-urls", "http://127.0.0.1:" + clientPort,
                "--listen-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-cluster", "defaults=http://127.0.0.1:" + peerPort, "--log-level", "warn"),
                dir, clientPort, io.locksmith.tck.server.StoreServers.ETCD_INSTALL_HINT).deleteWorkDirOnClose()) {
            String uri = "etcd://127.0.0.1:" + defaults.port();

            Run tooSmall = Run.lockctl("tck", "--uri", uri, "--scale", "2.5", "--rule", "R3.1");
            assertEquals(ExitCode.USAGE, tooSmall.exitCode(), tooSmall.both());
            assertTrue(tooSmall.err().contains("under the 2000 ms minimum") && tooSmall.err().contains("use scale 5.0"),
                    tooSmall.both());

            // R3.1 and R3.2 wait for a fixed lease to run out, R6.1 for a renewing one to outlive its TTL: rules
            // that failed at the 400 ms default.
            Run run = Run.lockctl("tck", "--uri", uri, "--rule", "R2.1,R3.1,R3.2,R6.1,R6.5");
            assertEquals(ExitCode.OK, run.exitCode(), run.both());
            assertTrue(run.err().contains("timing scale 5.0"), run.both());
            assertTrue(run.out().contains("TCK PASSED on "), run.both());
        }
    }

    @Test
    void bench() {
        benchRuns();
    }
}
