package io.locksmith.lockctl;

/**
 * The exit codes of every {@code lockctl} command, for scripts. Documented in {@code docs/LOCKCTL.md}.
 */
public final class ExitCode {

    /** The command did what it was asked, and every check or rule passed. */
    public static final int OK = 0;
    /** A check or a rule failed: doctor found a FAIL, a required TCK rule failed, the demo's Locksmith run was unsafe. */
    public static final int CHECK_FAILED = 1;
    /** The command line or the store URI was wrong: unknown option, missing argument, unknown scheme, bad parameter. */
    public static final int USAGE = 2;
    /** The store could not be reached. */
    public static final int STORE_UNREACHABLE = 3;

    private ExitCode() {
    }
}
