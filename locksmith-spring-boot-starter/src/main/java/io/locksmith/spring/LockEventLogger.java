package io.locksmith.spring;

import io.locksmith.HolderIdentity;
import io.locksmith.LockEvent;
import io.locksmith.LockListener;
import io.locksmith.LockLostException;
import io.locksmith.LossReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Logs lock events under the logger {@value #LOGGER}, so that one trace shows the lock, the work and the release:
 * <ul>
 * <li>DEBUG: acquired (with the wait), released (with the hold time), acquire timed out;</li>
 * <li>TRACE: re-entered, renewed;</li>
 * <li>WARN: acquire failed, renewal failed, release failed;</li>
 * <li>INFO: lost (lock-api itself logs the loss at WARN under {@code io.locksmith}); DEBUG when the client closed.</li>
 * </ul>
 * Each line names the lock, the fencing token, the store, the holder (client id and thread) and the trace id, as
 * text and as SLF4J key-value pairs ({@code lock}, {@code token}, {@code store}, {@code holder}, {@code thread},
 * {@code traceId}, {@code elapsedMs}) for structured encoders. Events raised off the holder's thread (renewals and
 * losses on the client's renewal thread) put the holder's trace id in the MDC under {@code traceId} for the
 * line, so log patterns that print the MDC trace id show it there too.
 */
public final class LockEventLogger implements LockListener {

    /** The logger name. */
    public static final String LOGGER = "io.locksmith.events";

    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    @Override
    public void onEvent(LockEvent event) {
        Level level = levelOf(event);
        if (event.type() == LockEvent.Type.ACQUIRE_FAILED && LockedExecution.callerReportsFailure(event.lockName())) {
            // A @Locked method or LockTemplate call writes the one WARN line of this failure, with its outcome.
            level = Level.DEBUG;
        }
        if (!LOG.isEnabledForLevel(level)) {
            return;
        }
        HolderIdentity holder = event.holder();
        String traceId = holder == null ? null : holder.traceId();
        boolean traceMissingFromMdc = traceId != null && MDC.get("traceId") == null;
        if (traceMissingFromMdc) {
            MDC.put("traceId", traceId);
        }
        try {
            LoggingEventBuilder line = LOG.atLevel(level)
                    .addKeyValue("event", event.type().name().toLowerCase(java.util.Locale.ROOT))
                    .addKeyValue("lock", event.lockName())
                    .addKeyValue("token", event.fencingToken())
                    .addKeyValue("store", event.store())
                    .addKeyValue("elapsedMs", event.elapsed().toMillis());
            if (holder != null) {
                line = line.addKeyValue("holder", holder.clientId()).addKeyValue("thread", holder.thread());
            }
            if (traceId != null) {
                line = line.addKeyValue("traceId", traceId);
            }
            if (event.error() != null && level.toInt() >= Level.WARN.toInt()) {
                line = line.setCause(event.error());
            }
            line.log(message(event, traceId));
        } finally {
            if (traceMissingFromMdc) {
                MDC.remove("traceId");
            }
        }
    }

    private static Level levelOf(LockEvent event) {
        return switch (event.type()) {
            case ACQUIRED, RELEASED, ACQUIRE_TIMED_OUT -> Level.DEBUG;
            case REENTERED, RENEWED -> Level.TRACE;
            case ACQUIRE_FAILED, RENEW_FAILED, RELEASE_FAILED -> Level.WARN;
            case LOST -> lossReason(event) == LossReason.CLIENT_CLOSED ? Level.DEBUG : Level.INFO;
        };
    }

    private static String message(LockEvent event, String traceId) {
        String subject = "lock '" + event.lockName() + "'";
        String token = event.fencingToken() >= 0 ? " token " + event.fencingToken() : "";
        String who = event.holder() == null ? "" : " by client " + event.holder().clientId()
                + " thread '" + event.holder().thread() + "'";
        String trace = traceId == null ? "" : " trace " + traceId;
        long ms = event.elapsed().toMillis();
        String what = switch (event.type()) {
            case ACQUIRED -> "acquired after " + ms + " ms";
            case REENTERED -> "re-entered";
            case ACQUIRE_TIMED_OUT -> "not acquired: timed out after " + ms + " ms";
            case ACQUIRE_FAILED -> "acquire failed after " + ms + " ms: " + errorText(event);
            case RELEASED -> "released after holding it " + ms + " ms";
            case RELEASE_FAILED -> "release not confirmed by the store (it expires at its lease time): " + errorText(event);
            case RENEWED -> "renewed";
            case RENEW_FAILED -> "renewal failed, retrying until the lease's deadline: " + errorText(event);
            case LOST -> "lost after " + ms + " ms (" + lossReason(event) + ")";
        };
        return subject + " " + what + " [" + event.store() + token + who + trace + "]";
    }

    private static LossReason lossReason(LockEvent event) {
        return event.error() instanceof LockLostException lost && lost.event() != null ? lost.event().reason() : null;
    }

    private static String errorText(LockEvent event) {
        return event.error() == null ? "unknown error" : String.valueOf(event.error().getMessage());
    }
}
