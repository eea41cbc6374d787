package io.locksmith;

import java.util.Objects;
import java.util.Optional;

/**
 * Who holds (or held) a lock: the client that acquired it, the thread that called acquire, the
 * process, and an optional trace id. Stored next to the lock so that {@code inspect} and the logs can
 * say who held what.
 *
 * <p>No field contains a tab or a line break: the constructor replaces them with spaces, so a provider can
 * store the identity on one line (its storage format lives in the SPI, {@code io.locksmith.spi.HolderCodec}).
 *
 * @param clientId  the random id of the {@link LockClient} (a UUID unless configured)
 * @param process   {@code pid@host} of the JVM
 * @param thread    name of the thread that acquired
 * @param threadId  id of the thread that acquired
 * @param traceId   trace id at acquire time, or {@code null}
 */
public record HolderIdentity(String clientId, String process, String thread, long threadId, String traceId) {

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

    private static String clean(String value) {
        return value == null ? "" : value.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    }

    @Override
    public String toString() {
        return "client " + clientId + " (" + process + "), thread '" + thread + "'#" + threadId
                + (traceId == null ? "" : ", trace " + traceId);
    }
}
