package io.locksmith.postgres;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one listening connection of a client: {@code LISTEN} on the store's channel, whose payload is the name of
 * a lock that was released or cleaned up, and the callbacks of the waiters subscribed to each name.
 *
 * <p>Notifications sent while the connection is down, or before its first {@code LISTEN}, are lost (PostgreSQL
 * keeps none for a session that is not listening). So once {@code LISTEN} holds, after the first connect and after
 * every reconnect, every subscriber is woken, and retries at once; the client's
 * backoff poll remains the safety net in between. A silently dead connection is found by a {@code SELECT 1}
 * after a few idle seconds.
 *
 * <p>An expiry is no event in the database: a waiter learns the holder's remaining time from its failed
 * attempt, and {@link #wakeAt} wakes it then.
 */
final class ReleaseListener implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseListener.class);
    private static final int POLL_MILLIS = 500;
    private static final long PROBE_NANOS = TimeUnit.SECONDS.toNanos(3);
    private static final long MAX_RECONNECT_PAUSE_MILLIS = 2000;

    interface Connector {
        Connection connect() throws SQLException;
    }

    private final Connector connector;
    private final String channel;
    private final String store;
    private final ScheduledExecutorService scheduler;
    private final Map<String, Set<Runnable>> subscribers = new ConcurrentHashMap<>();
    private final Map<String, ScheduledFuture<?>> expiryWakes = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean open = true;
    private volatile boolean listening;
    private volatile Connection connection;

    ReleaseListener(Connector connector, String channel, String store, ScheduledExecutorService scheduler,
                    String threadName) {
        this.connector = connector;
        this.channel = channel;
        this.store = store;
        this.scheduler = scheduler;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Whether the connection is listening now (tests, doctor). */
    boolean isListening() {
        return listening;
    }

    AutoCloseable subscribe(String name, Runnable onChange) {
        subscribers.computeIfAbsent(name, n -> new CopyOnWriteArraySet<>()).add(onChange);
        return () -> subscribers.computeIfPresent(name, (n, set) -> {
            set.remove(onChange);
            return set.isEmpty() ? null : set;
        });
    }

    boolean hasSubscribers(String name) {
        return subscribers.containsKey(name);
    }

    /** Wakes the subscribers of {@code name} after {@code delayNanos}, when the holder's lease runs out. */
    void wakeAt(String name, long delayNanos) {
        if (!hasSubscribers(name) || !open) {
            return;
        }
        try {
            ScheduledFuture<?> wake = scheduler.schedule(() -> {
                expiryWakes.remove(name);
                wake(name);
            }, delayNanos, TimeUnit.NANOSECONDS);
            ScheduledFuture<?> previous = expiryWakes.put(name, wake);
            if (previous != null) {
                previous.cancel(false);
            }
        } catch (RejectedExecutionException closing) {
            // the client is closing
        }
    }

    void wake(String name) {
        Set<Runnable> callbacks = subscribers.get(name);
        if (callbacks != null) {
            callbacks.forEach(ReleaseListener::runQuietly);
        }
    }

    private void wakeAll() {
        subscribers.values().forEach(callbacks -> callbacks.forEach(ReleaseListener::runQuietly));
    }

    private static void runQuietly(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.warn("a release callback failed", e);
        }
    }

    private void run() {
        long pause = 50;
        boolean first = true;
        while (open) {
            try (Connection listen = connector.connect()) {
                connection = listen;
                try (Statement statement = listen.createStatement()) {
                    statement.execute("LISTEN \"" + channel + "\"");
                }
                listening = true;
                pause = 50;
                if (!first) {
                    LOG.info("listening for releases on {} again; waking every waiter (notifications sent meanwhile"
                            + " are lost)", store);
                }
                // Also on the first connection: a waiter may have subscribed, failed its attempt and missed the
                // holder's release while LISTEN was still on its way, and nothing else would call it back.
                wakeAll();
                first = false;
                listen(listen);
            } catch (SQLException | RuntimeException e) {
                if (!open) {
                    return;
                }
                if (listening || first) {
                    LOG.warn("the connection listening for releases on {} failed; waiters poll until it is back: {}",
                            store, e.getMessage());
                }
                first = false;
            } finally {
                listening = false;
                connection = null;
            }
            if (!open) {
                return;
            }
            wakeAll();
            try {
                Thread.sleep(pause); // reconnect backoff: there is no event that announces the server is back
            } catch (InterruptedException e) {
                return;
            }
            pause = Math.min(MAX_RECONNECT_PAUSE_MILLIS, pause * 2);
        }
    }

    private void listen(Connection listen) throws SQLException {
        PGConnection pg = listen.unwrap(PGConnection.class);
        long lastHeard = System.nanoTime();
        while (open) {
            PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
            if (notifications != null && notifications.length > 0) {
                lastHeard = System.nanoTime();
                for (PGNotification notification : notifications) {
                    wake(notification.getParameter());
                }
            } else if (System.nanoTime() - lastHeard > PROBE_NANOS) {
                try (Statement probe = listen.createStatement()) {
                    probe.execute("SELECT 1");
                }
                lastHeard = System.nanoTime();
            }
        }
    }

    @Override
    public void close() {
        open = false;
        expiryWakes.values().forEach(wake -> wake.cancel(false));
        expiryWakes.clear();
        Connection current = connection;
        if (current != null) {
            try {
                current.close();
            } catch (SQLException e) {
                LOG.debug("closing the listening connection failed", e);
            }
        }
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
