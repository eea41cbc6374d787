package io.locksmith.lockctl;

import io.locksmith.lockctl.demo.DemoReport;
import io.locksmith.lockctl.demo.DemoSettings;
import io.locksmith.lockctl.demo.OversellDemo;
import io.locksmith.tck.server.ServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** lockctl against a real redis-server through the Redis backend in the shaded jar's classpath. */
class RedisEndToEndTest extends StoreEndToEnd {

    private static Path dir;
    private static ServerProcess redis;

    @BeforeAll
    static void startRedis() throws IOException {
        dir = Files.createTempDirectory("lockctl-redis");
        redis = Servers.redis(dir);
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    String uri() {
        return "redis://127.0.0.1:" + redis.port();
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
    void demoOnRedisNeverOversells() {
        DemoReport report = OversellDemo.run(DemoSettings.defaults().withUri(uri()).withOrders(24).withStock(12), line -> { });

        assertTrue(report.naive().oversold(), report.toString());
        assertTrue(report.locksmith().safe(), report.toString());
        assertTrue(report.locksmith().lossesReported() > 0, report.toString());
        assertTrue(report.fencing(), report.toString());
    }

    @Test
    void unreachableRedisExitsThreeForEveryStoreCommand() {
        for (String command : new String[] {"inspect", "tck", "bench", "demo"}) {
            Run run = command.equals("inspect") ? Run.lockctl(command, "--uri", "redis://127.0.0.1:1", "x")
                    : Run.lockctl(command, "--uri", "redis://127.0.0.1:1");

            assertEquals(ExitCode.STORE_UNREACHABLE, run.exitCode(), command + ": " + run.both());
            assertTrue(run.err().contains("lockctl: store unreachable: "), command + ": " + run.both());
            assertTrue(!run.err().contains("\tat "), command + ": " + run.both());
        }
    }
}
