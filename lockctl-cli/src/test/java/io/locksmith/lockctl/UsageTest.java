package io.locksmith.lockctl;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Help, bad arguments and the exit codes scripts rely on. */
class UsageTest {

    @ParameterizedTest
    @ValueSource(strings = {"demo", "inspect", "doctor", "tck", "bench"})
    void everyCommandHasHelp(String command) {
        Run run = Run.lockctl(command, "--help");

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        assertTrue(run.out().startsWith("Usage: lockctl " + command), run.both());
    }

    @Test
    void topLevelHelpListsCommandsAndExitCodes() {
        Run run = Run.lockctl("--help");

        assertEquals(ExitCode.OK, run.exitCode(), run.both());
        for (String text : new String[] {"demo", "inspect", "doctor", "tck", "bench", "Exit codes:", "store unreachable"}) {
            assertTrue(run.out().contains(text), text + " missing: " + run.both());
        }
    }

    @Test
    void noCommandIsAUsageError() {
        Run run = Run.lockctl();

        assertEquals(ExitCode.USAGE, run.exitCode(), run.both());
        assertTrue(run.err().startsWith("lockctl: missing command"), run.both());
        assertTrue(run.err().contains("Usage: lockctl [-hV] [--verbose] COMMAND"), run.both());
    }

    @Test
    void unknownCommandIsAUsageError() {
        Run run = Run.lockctl("frobnicate");

        assertEquals(ExitCode.USAGE, run.exitCode(), run.both());
        assertTrue(run.err().startsWith("lockctl: Unmatched argument at index 0: 'frobnicate'"), run.both());
    }

    @Test
    void badOptionValuePrintsOneLineAndTheUsage() {
        Run run = Run.lockctl("bench", "--uri", "mem://", "--ops", "many");

        assertEquals(ExitCode.USAGE, run.exitCode(), run.both());
        String[] lines = run.err().split("\n");
        assertEquals("lockctl: Invalid value for option '--ops': 'many' is not an int", lines[0], run.both());
        assertTrue(lines[1].startsWith("Usage: lockctl bench"), run.both());
        assertEquals("", run.out());
    }

    @Test
    void unknownOptionIsAUsageError() {
        Run run = Run.lockctl("doctor", "--uri", "mem://", "--colour");

        assertEquals(ExitCode.USAGE, run.exitCode(), run.both());
        assertTrue(run.err().startsWith("lockctl: Unknown option: '--colour'"), run.both());
    }

    @Test
    void missingUriIsAUsageError() {
        Run run = Run.lockctl("inspect", "some-lock");

        assertEquals(ExitCode.USAGE, run.exitCode(), run.both());
        assertTrue(run.err().startsWith("lockctl: missing --uri (or set LOCKSMITH_URI)"), run.both());
    }

    @Test
    void unknownSchemeIsAUsageErrorNamingTheAvailableOnes() {
        Run run = Run.lockctl("inspect", "--uri", "nosuchstore://h:1", "x");

        assertEquals(ExitCode.USAGE, run.exitCode(), run.both());
        assertTrue(run.err().startsWith("lockctl: unknown lock store scheme 'nosuchstore'"), run.both());
        assertTrue(run.err().contains("mem"), run.both());
    }

    @Test
    void badDurationIsAUsageError() {
        Run run = Run.lockctl("doctor", "--uri", "mem://", "--timeout", "soon");

        assertEquals(ExitCode.USAGE, run.exitCode(), run.both());
        assertTrue(run.err().startsWith("lockctl: --timeout: 'soon' is not a positive duration"), run.both());
    }

    @Test
    void unreachableStoreExitsThreeWithOneLineAndNoStackTrace() {
        // Port 1 on loopback: nothing listens there, the connection is refused at once.
        Run run = Run.lockctl("doctor", "--uri", "redis://127.0.0.1:1", "--read-only", "--timeout", "1s");

        assertEquals(ExitCode.STORE_UNREACHABLE, run.exitCode(), run.both());
        assertEquals(1, run.err().strip().lines().filter(line -> line.startsWith("lockctl:")).count(), run.both());
        assertTrue(run.err().contains("127.0.0.1:1"), "the message names the store: " + run.both());
        assertFalse(run.err().contains("\tat "), "no stack trace without --verbose: " + run.both());
    }

    @Test
    void verboseAddsTheStackTrace() {
        Run run = Run.lockctl("doctor", "--uri", "redis://127.0.0.1:1", "--read-only", "--timeout", "1s", "--verbose");

        assertEquals(ExitCode.STORE_UNREACHABLE, run.exitCode(), run.both());
        assertTrue(run.err().contains("\tat "), run.both());
    }
}
