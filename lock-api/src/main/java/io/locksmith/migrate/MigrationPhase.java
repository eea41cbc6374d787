package io.locksmith.migrate;

import io.locksmith.LockConfigurationException;

import java.util.Locale;

/**
 * The phases of moving locks from one store to another, rolled out one instance at a time:
 * {@link #FROM}, then {@link #DUAL}, then {@link #TO}. Clients in adjacent phases share a store, so mutual
 * exclusion holds at every step of the rollout; clients two phases apart would not, and the phase guard
 * refuses to start them.
 */
public enum MigrationPhase {
    /** Old store only. */
    FROM,
    /** Both stores: acquire in the old then the new; release the new then the old; a loss in either is a loss. */
    DUAL,
    /** New store only. */
    TO;

    /** Whether clients in these two phases can run at the same time (same or neighbouring phase). */
    public boolean canCoexistWith(MigrationPhase other) {
        return Math.abs(ordinal() - other.ordinal()) <= 1;
    }

    /** The phase as written in configuration: {@code from}, {@code dual}, {@code to}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Reads {@code from}, {@code dual} or {@code to}.
     *
     * @throws LockConfigurationException for anything else, listing the phases
     */
    public static MigrationPhase parse(String text) {
        for (MigrationPhase phase : values()) {
            if (phase.configName().equalsIgnoreCase(text.strip())) {
                return phase;
            }
        }
        throw new LockConfigurationException("unknown migration phase '" + text + "'; expected from, dual or to");
    }
}
