package io.locksmith.lockctl;

import io.locksmith.Lease;
import io.locksmith.LockClient;

import java.time.Duration;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checks every real store gets through lockctl: inspect (table, JSON, --prefix), doctor with its probe
 * lock, and a few TCK rules end to end (the whole kit runs on mem:// in {@link TckCommandTest}; on real
 * stores it takes 15 to 50 s each, past this module's test budget).
 */
abstract class StoreEndToEnd {

    /** A few rules that go through acquire, owner-checked release, fencing, waiting and inspect on the store. */
    static final String TCK_RULES = "R1.1,R2.1,R5.1,R7.3,R8.3";

    abstract String uri();

    /** Extra tck arguments, e.g. a timing scale for stores that count whole seconds. */
    String[] tckExtraArgs() {
        return new String[0];
    }

    @SuppressWarnings("try") // the resource is held for its scope only
    void inspectShowsHoldersAndListsByPrefix() {
        String prefix = "lockctl-e2e-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        try (LockClient holder = LockClient.open(uri());
             Lease first = holder.lock(prefix + "order:1").acquire(Duration.ofSeconds(5));
             Lease second = holder.lock(prefix + "order/2 with space").acquire(Duration.ofSeconds(5));
             Lease other = holder.lock("other-" + prefix).acquire(Duration.ofSeconds(5))) {
            Run table = Run.lockctl("inspect", "--uri", uri(), prefix + "order:1", prefix + "free");

            assertEquals(ExitCode.OK, table.exitCode(), table.both());
            String[] lines = table.out().split("\n");
            assertTrue(lines[1].startsWith(prefix + "order:1") && lines[1].contains("held"), table.both());
            assertTrue(lines[1].contains(holder.clientId()), table.both());
            assertTrue(lines[1].contains(" " + first.fencingToken() + " "), table.both());
            assertTrue(lines[2].startsWith(prefix + "free") && lines[2].contains("free"), table.both());

            Run json = Run.lockctl("inspect", "--uri", uri(), "--json", prefix + "order:1");
            assertEquals(ExitCode.OK, json.exitCode(), json.both());
            assertTrue(json.out().contains("\"clientId\":\"" + holder.clientId() + "\""), json.both());
            assertTrue(json.out().contains("\"fencingToken\":" + first.fencingToken()), json.both());

            Run listed = Run.lockctl("inspect", "--uri", uri(), "--prefix", prefix);
            assertEquals(ExitCode.OK, listed.exitCode(), listed.both());
            assertTrue(listed.out().contains(prefix + "order:1 "), listed.both());
            assertTrue(listed.out().contains(prefix + "order/2 with space "), "names are decoded: " + listed.both());
            assertFalse(listed.out().contains("other-" + prefix), "only names with the prefix: " + listed.both());
            assertEquals(3, listed.out().strip().split("\n").length, "header and two locks: " + listed.both());
        }
    }

    void doctorPassesWithItsProbeLock() {
        Run run = Run.lockctl("doctor", "--uri", uri(), "--timeout", "5s");

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        assertTrue(run.out().contains("[OK  ] store capabilities:"), run.both());
        assertTrue(run.out().contains("probe lock round trip: acquire median"), run.both());
        assertTrue(run.out().contains("[OK  ] probe inspect: the store names this client as the holder"), run.both());
        assertTrue(run.out().contains("[OK  ] probe fencing: tokens increased"), run.both());
        assertTrue(run.out().contains(" 0 FAIL"), run.both());
    }

    void tckRulesPass() {
        String[] args = concat(new String[] {"tck", "--uri", uri(), "--rule", TCK_RULES}, tckExtraArgs());
        Run run = Run.lockctl(args);

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        for (String rule : TCK_RULES.split(",")) {
            assertTrue(run.out().matches("(?s).*\\n" + rule.replace(".", "\\.") + " +PASSED .*"), rule + ": " + run.both());
        }
        assertTrue(run.out().contains("TCK PASSED on "), run.both());
    }

    void benchRuns() {
        Run run = Run.lockctl("bench", "--uri", uri(), "--ops", "30", "--threads", "2");

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        assertTrue(run.out().contains("acquire+release p99"), run.both());
        assertTrue(run.out().contains("contended, 2 clients, 1 name"), run.both());
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
