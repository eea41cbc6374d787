package io.locksmith.lockctl;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** lockctl against a real ZooKeeper server (curator-test's in-JVM TestingServer) through the ZooKeeper backend. */
class ZooKeeperEndToEndTest extends StoreEndToEnd {

    private static TestingServer zookeeper;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = new TestingServer(true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        if (zookeeper != null) {
            zookeeper.close();
        }
    }

    @Override
    String uri() {
        return "zookeeper://" + zookeeper.getConnectString() + "/lockctl-e2e";
    }

    @Test
    void inspect() {
        inspectShowsHoldersAndListsByPrefix();
    }

    @Test
    void doctor() {
        doctorPassesWithItsProbeLock();
    }

    @Test
    void tck() {
        tckRulesPass();
    }

    @Test
    void bench() {
        benchRuns();
    }

    @Test
    void demoOnZooKeeperNeverOversells() {
        Run run = Run.lockctl("demo", "--uri", uri(), "--orders", "24", "--stock", "12");

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        assertTrue(run.out().contains("stock never below zero"), run.both());
    }
}
