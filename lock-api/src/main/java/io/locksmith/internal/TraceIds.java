package io.locksmith.internal;

import org.slf4j.MDC;

/** The default trace id source: the MDC keys that common tracers fill. */
final class TraceIds {

    private static final String[] KEYS = {"traceId", "trace_id", "X-B3-TraceId"};

    private TraceIds() {
    }

    static String fromMdc() {
        try {
            for (String key : KEYS) {
                String value = MDC.get(key);
                if (value != null && !value.isEmpty()) {
                    return value;
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // An MDC adapter that fails must not break locking; there is simply no trace id.
        }
        return null;
    }
}
