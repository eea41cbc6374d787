package io.locksmith.spi;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses and prints durations the way configuration writes them: {@code 500ms}, {@code 30s}, {@code 2m}. */
public final class Durations {

    private static final Pattern SIMPLE = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    private Durations() {
    }

    /**
     * Parses {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 1d}, or ISO-8601 such as {@code PT30S}.
     *
     * @throws NullPointerException     if {@code text} is null
     * @throws IllegalArgumentException if {@code text} is none of these
     */
    public static Duration parse(String text) {
        Objects.requireNonNull(text, "text cannot be null");
        String value = text.strip().toLowerCase(Locale.ROOT);
        Matcher matcher = SIMPLE.matcher(value);
        if (matcher.matches()) {
            long amount;
            try {
                amount = Long.parseLong(matcher.group(1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("number too large in '" + text + "'");
            }
            return switch (matcher.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
        }
        try {
            return Duration.parse(text.strip().toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration");
        }
    }

    /** Prints a duration as configuration would write it: {@code 1500ms}, {@code 30s}, {@code 2m}. */
    public static String format(Duration duration) {
        long millis = duration.toMillis();
        if (millis % 60_000 == 0 && millis != 0) {
            return millis / 60_000 + "m";
        }
        if (millis % 1000 == 0) {
            return millis / 1000 + "s";
        }
        return millis + "ms";
    }
}
