package io.locksmith.architecture;

import com.tngtech.archunit.library.freeze.ViolationLineMatcher;

/**
 * Matches a recorded cycle violation by its cycle ("Slice a -> Slice b -> Slice a") only, not by the list of
 * dependencies that form it: a new method along a frozen cycle is not a new cycle, while a cycle through
 * another package is. Other violations match as ArchUnit's default does, ignoring line numbers.
 */
public final class CycleMatcher implements ViolationLineMatcher {

    private static final String DEPENDENCY_LIST = "  1. Dependencies of ";

    @Override
    public boolean matches(String recorded, String current) {
        return normalize(recorded).equals(normalize(current));
    }

    private static String normalize(String violation) {
        int dependencies = violation.indexOf(DEPENDENCY_LIST);
        String kept = dependencies >= 0 ? violation.substring(0, dependencies) : violation;
        return kept.replaceAll("\\.java:\\d+\\)", ".java:0)").strip();
    }
}
