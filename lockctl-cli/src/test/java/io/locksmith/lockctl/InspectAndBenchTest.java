package io.locksmith.lockctl;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** inspect and bench end to end on mem:// (a store in this JVM, shared by name with the command). */
class InspectAndBenchTest {

    @Test
    void inspectShowsTheHolderTokenAndRemainingLease() {
        String uri = "mem://inspect-" + UUID.randomUUID();
        try (LockClient client = LockClient.open(uri);
             Lease lease = client.lock("order:1001").acquire(Duration.ofSeconds(1))) {
            Run run = Run.lockctl("inspect", "--uri", uri, "order:1001", "order:1002");

            assertEquals(ExitCode.OK, run.exitCode(), run.both());
            String[] lines = run.out().split("\n");
            assertTrue(lines[0].startsWith("NAME"), run.both());
            assertTrue(lines[1].startsWith("order:1001"), run.both());
            assertTrue(lines[1].contains("held") && lines[1].contains(client.clientId()), run.both());
            assertTrue(lines[1].contains(Thread.currentThread().getName()), run.both());
            assertTrue(lines[1].contains(" " + lease.fencingToken() + " "), run.both());
            assertTrue(lines[1].contains(" ms"), "remaining lease: " + run.both());
            assertTrue(lines[2].startsWith("order:1002") && lines[2].contains("free"), run.both());
        }
    }

    @Test
    void inspectJsonIsForScripts() {
        String uri = "mem://inspect-" + UUID.randomUUID();
        try (LockClient client = LockClient.open(uri);
             Lease lease = client.lock("sku-7").acquire(Duration.ofSeconds(1))) {
            Run run = Run.lockctl("inspect", "--uri", uri, "--json", "sku-7", "sku-8");

            assertEquals(ExitCode.OK, run.exitCode(), run.both());
            String json = run.out().strip();
            assertTrue(json.startsWith("{\"uri\":\"" + uri + "\",\"locks\":[{\"name\":\"sku-7\",\"held\":true,"), json);
            assertTrue(json.contains("\"clientId\":\"" + client.clientId() + "\""), json);
            assertTrue(json.contains("\"fencingToken\":" + lease.fencingToken()), json);
            assertTrue(json.contains("{\"name\":\"sku-8\",\"held\":false}"), json);
        }
    }

    @Test
    void inspectPrefixListsTheHeldLocksThroughTheBackend() {
        String uri = "mem://inspect-" + UUID.randomUUID();
        try (LockClient client = LockClient.open(uri);
             Lease first = client.lock("order:1").acquire(Duration.ofSeconds(5));
             Lease second = client.lock("order:2").acquire(Duration.ofSeconds(5));
             Lease other = client.lock("invoice:1").acquire(Duration.ofSeconds(5))) {
            Run run = Run.lockctl("inspect", "--uri", uri, "--json", "--prefix", "order:");

            assertEquals(ExitCode.OK, run.exitCode(), run.both());
            String json = run.out().strip();
            assertTrue(json.contains("{\"name\":\"order:1\",\"held\":true,"), json);
            assertTrue(json.contains("\"fencingToken\":" + second.fencingToken()), json);
            assertTrue(!json.contains("invoice:1") && first.isHeld() && other.isHeld(), json);
        }
    }

    @Test
    void inspectShowsPermitLeasesReadersAndTheLeader() {
        String uri = "mem://inspect-" + UUID.randomUUID();
        try (LockClient client = LockClient.open(uri);
             io.locksmith.PermitLease two = client.semaphore("exports", 4).acquire(2, Duration.ofSeconds(2));
             io.locksmith.PermitLease one = client.semaphore("exports", 4).acquire(1, Duration.ofSeconds(2));
             Lease read = client.readWriteLock("catalog").readLock().acquire(Duration.ofSeconds(2));
             io.locksmith.LeaderElection election = client.election("reports")) {
            election.join();
            Lease term = election.awaitLeadership(Duration.ofSeconds(5));
            Run run = Run.lockctl("inspect", "--uri", uri, "--semaphore", "exports=4", "--read-write", "catalog",
                    "--read-write", "prices=8", "--election", "reports", "--election", "nobody");

            assertEquals(ExitCode.OK, run.exitCode(), run.both());
            String out = run.out();
            assertTrue(out.startsWith("PRIMITIVE"), run.both());
            // The store keeps no lease id beside a permit: the three permits of this thread show as one holding.
            assertTrue(out.lines().anyMatch(line -> line.contains("semaphore") && line.contains("3 of 4")
                    && line.contains(client.clientId())), run.both());
            assertTrue(out.lines().anyMatch(line -> line.contains("catalog") && line.contains("reader")
                    && line.contains("1 of 16")), run.both());
            assertTrue(out.lines().anyMatch(line -> line.contains("prices") && line.contains("free")), run.both());
            assertTrue(out.lines().anyMatch(line -> line.contains("reports") && line.contains("leader")
                    && line.contains(client.clientId()) && line.contains(" " + term.fencingToken() + " ")), run.both());
            assertTrue(out.lines().anyMatch(line -> line.contains("nobody") && line.contains("no leader")), run.both());

            Run json = Run.lockctl("inspect", "--uri", uri, "--json", "--semaphore", "exports=4", "--election",
                    "reports");
            assertEquals(ExitCode.OK, json.exitCode(), json.both());
            assertTrue(json.out().contains("\"primitives\":[{\"kind\":\"semaphore\",\"name\":\"exports\",\"permits\":4,"),
                    json.both());
            assertTrue(json.out().contains("\"term\":" + term.fencingToken()), json.both());
            assertTrue(json.out().contains("\"permits\":3,\"storeTokens\":["), json.both());
            assertTrue(two.isHeld() && one.isHeld() && read.isHeld());
        }
    }

    @Test
    void aSemaphoreWithoutItsSizeIsAUsageError() {
        Run run = Run.lockctl("inspect", "--uri", "mem://x", "--semaphore", "exports");

        assertEquals(ExitCode.USAGE, run.exitCode(), run.both());
        assertTrue(run.err().startsWith("lockctl: --semaphore exports: give NAME=PERMITS"), run.both());
    }

    @Test
    void aWriterShowsAsOneLeaseHoldingEveryShare() {
        String uri = "mem://inspect-" + UUID.randomUUID();
        try (LockClient client = LockClient.open(uri);
             Lease write = client.readWriteLock("catalog").writeLock().acquire(Duration.ofSeconds(2))) {
            Run run = Run.lockctl("inspect", "--uri", uri, "--read-write", "catalog");

            assertEquals(ExitCode.OK, run.exitCode(), run.both());
            assertTrue(run.out().lines().anyMatch(line -> line.contains("writer") && line.contains("16 of 16")
                    && line.contains(client.clientId())), run.both());
            assertTrue(write.isHeld());
        }
    }

    @Test
    void inspectPrefixOnAStoreThatCannotListIsAUsageError() {
        Run run = Run.lockctl("inspect", "--uri", "brokenlock://", "--prefix", "order:");

        assertEquals(ExitCode.USAGE, run.exitCode(), run.both());
        assertTrue(run.err().startsWith("lockctl: --prefix is not supported for brokenlock://"), run.both());
    }

    @Test
    void benchPrintsLatencyAndThroughput() {
        Run run = Run.lockctl("bench", "--uri", "mem://bench-" + UUID.randomUUID(), "--ops", "200", "--threads", "3");

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        assertTrue(run.out().contains("acquire+release p50"), run.both());
        assertTrue(run.out().contains("acquire+release p99"), run.both());
        assertTrue(run.out().contains("ops/s"), run.both());
        assertTrue(run.out().contains("contended, 3 clients"), run.both());
    }
}
