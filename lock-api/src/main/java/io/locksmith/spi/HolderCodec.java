package io.locksmith.spi;

import io.locksmith.HolderIdentity;

import java.util.Objects;

/**
 * The storage format of a {@link HolderIdentity}: the one line a provider stores next to a lock so that
 * {@code inspect} and the logs can say who holds it. Every provider writes and reads it through this class, so
 * a value written by one Locksmith version (or one provider, in a migration) reads back in another.
 *
 * <p>The format is {@code v1}, then the client id, process, thread, thread id and trace id, separated by tabs.
 * {@link HolderIdentity} replaces tabs and line breaks in its fields, so the separator cannot occur inside one.
 */
public final class HolderCodec {

    private static final char SEPARATOR = '\t';
    private static final String VERSION = "v1";

    private HolderCodec() {
    }

    /**
     * The single-line form of {@code holder}, for storing next to the lock; {@link #decode(String)} reads it.
     *
     * @throws NullPointerException if {@code holder} is null
     */
    public static String encode(HolderIdentity holder) {
        Objects.requireNonNull(holder, "holder cannot be null");
        return VERSION + SEPARATOR + holder.clientId() + SEPARATOR + holder.process() + SEPARATOR + holder.thread()
                + SEPARATOR + holder.threadId() + SEPARATOR + (holder.traceId() == null ? "" : holder.traceId());
    }

    /**
     * Reads a value written by {@link #encode(HolderIdentity)}. Unknown or damaged values give an identity whose
     * client id is the raw text, so that {@code inspect} still shows something useful.
     *
     * @throws NullPointerException if {@code encoded} is null
     */
    public static HolderIdentity decode(String encoded) {
        Objects.requireNonNull(encoded, "encoded cannot be null");
        String[] parts = encoded.split(String.valueOf(SEPARATOR), -1);
        if (parts.length == 6 && parts[0].equals(VERSION)) {
            try {
                return new HolderIdentity(parts[1], parts[2], parts[3], Long.parseLong(parts[4]), parts[5]);
            } catch (NumberFormatException ignored) {
                // fall through to the raw form
            }
        }
        return new HolderIdentity(encoded, "", "", -1, null);
    }
}
