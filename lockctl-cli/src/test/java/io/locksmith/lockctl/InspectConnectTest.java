package io.locksmith.lockctl;

import io.locksmith.tck.server.FreePorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code inspect --timeout} bounds the connect too, and a connect that takes seconds shows progress on stderr
 * (issue 14, item 11): against a port where nothing listens, with a store connect time-out of 30 s.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InspectConnectTest {

    @Test
    void theTimeoutBoundsTheConnectAndProgressShowsMeanwhile() {
        String uri = "zookeeper://127.0.0.1:" + FreePorts.next() + "/locksmith?connectionTimeout=30s";
        long start = System.nanoTime();
        Run run = Run.lockctl("inspect", "--uri", uri, "--timeout", "2s", "order:1");
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertEquals(ExitCode.STORE_UNREACHABLE, run.exitCode(), run.both());
        assertTrue(run.err().contains("within 2000 ms (--timeout)"), run.both());
        assertTrue(run.err().contains("inspecting... 1 s"), "no progress during the connect: " + run.both());
        // The bound is the 2 s asked for, not the store's 30 s; what remains is thread start-up on a loaded machine.
        assertTrue(tookMs < 10_000, "inspect took " + tookMs + " ms with --timeout 2s");
    }
}
