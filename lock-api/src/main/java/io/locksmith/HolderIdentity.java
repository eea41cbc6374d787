package io.locksmith;

import java.util.Objects;
import java.util.Optional;

/**
 * Who holds (or held) a lock: the client that acquired it, the thread that called acquire, the
 * process, and an optional trace id. Stored next to the lock so that {@code inspect} and the logs can
 * say who held what.
 *
 * <p>{@link #encode()} gives a compact single-line form that backends store as they like;
 * {@link #decode(String)} reads it back. Neither field may contain a tab or a line break; the
 * factory methods replace them.
 *
 * @param clientId  the random id of the {@link LockClient} (a UUID unless configured)
 * @param process   {@code pid@host} of the JVM
 * @param thread    name of the thread that acquired
 * @param threadId  id of the thread that acquired
 * @param traceId   trace id at acquire time, or {@code null}
 */
public record HolderIdentity(String clientId, String process, String thread, long threadId, String traceId) {

    private static final char SEPARATOR = '\t';

    public HolderIdentity {
        Objects.requireNonNull(clientId, "clientId cannot be null");
        process = clean(process);
        thread = clean(thread);
        traceId = traceId == null || traceId.isEmpty() ? null : clean(traceId);
        clientId = clean(clientId);
    }

    /** The trace id that was current when the lock was acquired, if any. */
    public Optional<String> trace() {
        return Optional.ofNullable(traceId);
    }

    /** A single-line form for storing next to the lock; see {@link #decode(String)}. */
    public String encode() {
        return "v1" + SEPARATOR + clientId + SEPARATOR + process + SEPARATOR + thread + SEPARATOR
                + threadId + SEPARATOR + (traceId == null ? "" : traceId);
    }

    /**
     * Reads a value written by {@link #encode()}. Unknown or damaged values give an identity whose
     * client id is the raw text, so that {@code inspect} still shows something useful.
     *
     * @throws NullPointerException if {@code encoded} is null
     */
    public static HolderIdentity decode(String encoded) {
        Objects.requireNonNull(encoded, "encoded cannot be null");
        String[] parts = encoded.split(String.valueOf(SEPARATOR), -1);
        if (parts.length == 6 && parts[0].equals("v1")) {
            try {
                return new HolderIdentity(parts[1], parts[2], parts[3], Long.parseLong(parts[4]), parts[5]);
            } catch (NumberFormatException ignored) {
                // fall through to the raw form
            }
        }
        return new HolderIdentity(encoded, "", "", -1, null);
    }

    private static String clean(String value) {
        return value == null ? "" : value.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    }

    @Override
    public String toString() {
        return "client " + clientId + " (" + process + "), thread '" + thread + "'#" + threadId
                + (traceId == null ? "" : ", trace " + traceId);
    }
}
