package io.locksmith.lockctl.doctor;

import java.util.Locale;

/** Formats durations for findings. */
final class Millis {

    private Millis() {
    }

    static String of(long nanos) {
        double millis = nanos / 1_000_000.0;
        return millis < 10 ? String.format(Locale.ROOT, "%.2f ms", millis) : String.format(Locale.ROOT, "%.0f ms", millis);
    }
}
