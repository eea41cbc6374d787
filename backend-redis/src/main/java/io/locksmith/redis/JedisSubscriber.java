package io.locksmith.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.exceptions.JedisException;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One subscriber connection per client that multiplexes the release channels of every lock somebody waits
 * for: {@code SUBSCRIBE}/{@code UNSUBSCRIBE} as waiters come and go, on one thread started at the first
 * subscription. A lost connection is re-opened (to the current primary, under Sentinel) with every channel,
 * and every listener is called once, since a release may have been missed meanwhile. A channel whose
 * subscription was not confirmed when {@link #subscribe} returned (a slow server, a reconnect) has its listeners
 * called again when the server confirms it, since a release published before that reached nobody. Waiters also
 * poll with backoff, so a missed message costs latency, never the lock.
 */
final class JedisSubscriber implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(JedisSubscriber.class);
    /** Always subscribed, so the subscription does not end when the last lock channel is dropped. */
    private static final String KEEP_OPEN = "locksmith:subscriber";
    private static final long CONFIRM_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final Supplier<HostAndPort> primary;
    private final JedisClientConfig config;
    private final String description;
    private final Map<String, List<Consumer<String>>> listeners = new ConcurrentHashMap<>();
    private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
    /**
     * Channels with a listener that was told it is subscribed (or was subscribed before a reconnect) while the
     * server had not confirmed the channel yet: their listeners are called when it does. Guarded by
     * {@link #confirmed}'s monitor, together with the confirmation itself, so no confirmation slips between.
     */
    private final Set<String> confirmedLate = new HashSet<>();
    /** Guards {@link #current}, {@link #ready}, the SUBSCRIBE/UNSUBSCRIBE writes and the listener map changes. */
    private final Object lock = new Object();
    private PubSub current;
    private Jedis connection;
    private boolean ready;
    private Thread thread;
    private volatile boolean closed;

    JedisSubscriber(Supplier<HostAndPort> primary, JedisClientConfig config, String description) {
        this.primary = primary;
        this.config = config;
        this.description = description;
    }

    /** Calls {@code onMessage} with each message's text, or with {@code null} where one may have been missed. */
    AutoCloseable subscribe(String channel, Consumer<String> onMessage) {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException(description + " is closed");
            }
            List<Consumer<String>> list = listeners.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>());
            boolean first = list.isEmpty();
            list.add(onMessage);
            if (thread == null) {
                thread = new Thread(this::run, "locksmith-redis-subscriber");
                thread.setDaemon(true);
                thread.start();
            } else if (first && ready) {
                current.subscribe(channel);
            }
        }
        awaitConfirmed(channel);
        return () -> unsubscribe(channel, onMessage);
    }

    /**
     * Waits briefly until the server confirmed the subscription, so that a release right after the waiter's
     * next attempt is not missed. Not waiting longer is safe: the waiter polls anyway.
     */
    private void awaitConfirmed(String channel) {
        long deadline = System.nanoTime() + CONFIRM_WAIT_NANOS;
        synchronized (confirmed) {
            while (!confirmed.contains(channel) && !closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    confirmedLate.add(channel);
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(confirmed, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    confirmedLate.add(channel);
                    return;
                }
            }
        }
    }

    private void unsubscribe(String channel, Consumer<String> onMessage) {
        synchronized (lock) {
            List<Consumer<String>> list = listeners.get(channel);
            if (list == null || !list.remove(onMessage) || !list.isEmpty()) {
                return;
            }
            listeners.remove(channel);
            synchronized (confirmed) {
                confirmedLate.remove(channel);
            }
            if (ready) {
                try {
                    current.unsubscribe(channel);
                } catch (JedisException e) {
                    LOG.debug("unsubscribing {} on {} failed; the reconnect drops it", channel, description, e);
                }
            }
        }
    }

    private void run() {
        long pauseMillis = 50;
        while (!closed) {
            PubSub pubSub = new PubSub();
            try (Jedis jedis = new Jedis(primary.get(), config)) {
                synchronized (lock) {
                    if (closed) {
                        return;
                    }
                    current = pubSub;
                    connection = jedis;
                }
                jedis.subscribe(pubSub, KEEP_OPEN);
            } catch (JedisException | IllegalStateException e) {
                if (!closed) {
                    LOG.debug("release subscription on {} lost; reconnecting", description, e);
                }
            } finally {
                synchronized (lock) {
                    ready = false;
                    connection = null;
                }
                synchronized (confirmed) {
                    confirmed.clear();
                    confirmedLate.addAll(listeners.keySet());
                }
            }
            if (closed) {
                return;
            }
            // Releases published while we were away are lost: let every waiter check now.
            notifyAll(listeners.keySet());
            pauseMillis = pause(pauseMillis);
        }
    }

    /** Backs off between reconnects, at most one second, and returns the next pause. */
    private long pause(long millis) {
        try {
            Thread.sleep(millis); // waiting for a server to come back: there is no event to await
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
        return Math.min(1000, millis * 2);
    }

    private void notifyAll(Set<String> channels) {
        for (String channel : new ArrayList<>(channels)) {
            deliver(channel, null);
        }
    }

    /** Calls the listeners of {@code channel} with {@code message}, {@code null} if one may have been missed. */
    private void deliver(String channel, String message) {
        List<Consumer<String>> list = listeners.get(channel);
        if (list == null) {
            return;
        }
        for (Consumer<String> listener : list) {
            try {
                listener.accept(message);
            } catch (RuntimeException e) {
                LOG.warn("release listener for {} failed", channel, e);
            }
        }
    }

    private final class PubSub extends JedisPubSub {
        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            if (KEEP_OPEN.equals(channel)) {
                synchronized (lock) {
                    ready = true;
                    if (!listeners.isEmpty()) {
                        subscribe(listeners.keySet().toArray(new String[0]));
                    }
                }
            }
            boolean late;
            synchronized (confirmed) {
                confirmed.add(channel);
                late = confirmedLate.remove(channel);
                confirmed.notifyAll();
            }
            if (late) {
                deliver(channel, null);
            }
        }

        @Override
        public void onUnsubscribe(String channel, int subscribedChannels) {
            confirmed.remove(channel);
        }

        @Override
        public void onMessage(String channel, String message) {
            deliver(channel, message);
        }
    }

    @Override
    public void close() {
        Thread toJoin;
        synchronized (lock) {
            closed = true;
            toJoin = thread;
            if (connection != null) {
                try {
                    // Closing the socket ends the blocking read at once, even if the server does not answer.
                    connection.getConnection().close();
                } catch (RuntimeException e) {
                    LOG.debug("closing the subscriber connection of {} failed", description, e);
                }
            }
        }
        synchronized (confirmed) {
            confirmed.notifyAll();
        }
        if (toJoin != null) {
            toJoin.interrupt();
            try {
                toJoin.join(TimeUnit.SECONDS.toMillis(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
