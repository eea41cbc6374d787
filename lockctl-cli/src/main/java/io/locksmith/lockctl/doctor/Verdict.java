package io.locksmith.lockctl.doctor;

/** How a doctor check came out. */
public enum Verdict {
    /** Nothing to do. */
    OK,
    /** Locks work, but something weakens them or could not be checked: read the fix. */
    WARN,
    /** Locks are unsafe or do not work here: doctor exits with code 1. */
    FAIL
}
