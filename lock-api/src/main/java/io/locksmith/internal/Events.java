package io.locksmith.internal;

import io.locksmith.HolderIdentity;
import io.locksmith.LockEvent;
import io.locksmith.LockListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

/** Delivers {@link LockEvent}s to the client's listeners; a failing listener is logged, never propagated. */
final class Events {

    private static final Logger LOG = LoggerFactory.getLogger("io.locksmith");

    private final List<LockListener> listeners;
    private final String store;

    Events(List<LockListener> listeners, String store) {
        this.listeners = List.copyOf(listeners);
        this.store = store;
    }

    void emit(LockEvent.Type type, String name, long token, HolderIdentity holder, long elapsedNanos, Throwable error) {
        if (listeners.isEmpty()) {
            return;
        }
        LockEvent event = new LockEvent(type, name, store, token, holder, Duration.ofNanos(Math.max(0, elapsedNanos)), error);
        for (LockListener listener : listeners) {
            try {
                listener.onEvent(event);
            } catch (RuntimeException e) {
                LOG.warn("lock listener {} failed on {}", listener, type, e);
            }
        }
    }
}
