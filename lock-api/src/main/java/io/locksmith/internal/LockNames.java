package io.locksmith.internal;

import java.util.Objects;

/** The one place lock names are validated, so every backend sees the same rules. */
public final class LockNames {

    /** Longest accepted lock name, in characters. */
    public static final int MAX_LENGTH = 512;

    private LockNames() {
    }

    /**
     * Returns {@code name} if it is a valid lock name.
     *
     * @throws NullPointerException     if {@code name} is null
     * @throws IllegalArgumentException if it is empty, blank, longer than {@value #MAX_LENGTH} characters or
     *                                  contains a control character; the message says which
     */
    public static String validate(String name) {
        Objects.requireNonNull(name, "lock name cannot be null");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("lock name cannot be empty");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("lock name cannot be blank: '" + name + "'");
        }
        if (name.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("lock name is " + name.length() + " characters long; at most "
                    + MAX_LENGTH + " are allowed: '" + name.substring(0, 40) + "...'");
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isISOControl(name.charAt(i))) {
                throw new IllegalArgumentException("lock name contains a control character (U+"
                        + String.format("%04X", (int) name.charAt(i)) + ") at index " + i);
            }
        }
        return name;
    }
}
