package io.locksmith.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
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
 * One Lettuce pub/sub connection per client that multiplexes the release channels of every lock somebody waits for,
 * with {@link JedisSubscriber}'s contract: a channel whose subscription the server confirms only after
 * {@link #subscribe} returned, or again after the connection was lost and restored, has its listeners called once
 * with {@code null}, since a release published meanwhile reached nobody (after a loss, they are also called when it
 * is noticed). Lettuce reconnects the connection and
 * re-subscribes the channels it had confirmed; the channels whose {@code SUBSCRIBE} it rejected while disconnected
 * are subscribed again here when it is back. Waiters also poll with backoff, so a missed message costs latency, never
 * the lock.
 */
final class LettuceSubscriber implements AutoCloseable, RedisConnectionStateListener {

    private static final Logger LOG = LoggerFactory.getLogger(LettuceSubscriber.class);
    private static final long CONFIRM_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final Supplier<StatefulRedisPubSubConnection<String, String>> connector;
    private final String description;
    private final Map<String, List<Consumer<String>>> listeners = new ConcurrentHashMap<>();
    /** Channels the server confirmed on the current connection; its monitor also guards {@link #confirmedLate}. */
    private final Set<String> confirmed = new HashSet<>();
    /** Channels whose listeners are to be called when the server confirms them (see the class comment). */
    private final Set<String> confirmedLate = new HashSet<>();
    /** Guards {@link #connection}, the listener map changes and the SUBSCRIBE/UNSUBSCRIBE writes, so they keep order. */
    private final Object lock = new Object();
    private volatile StatefulRedisPubSubConnection<String, String> connection;
    private volatile boolean closed;

    /** @param connector opens the pub/sub connection (to the current primary, under Sentinel) */
    LettuceSubscriber(Supplier<StatefulRedisPubSubConnection<String, String>> connector, String description) {
        this.connector = connector;
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
            if (connection == null) {
                open(); // subscribes every channel with a listener, this one included
            } else if (first) {
                send(channel, true);
            }
        }
        awaitConfirmed(channel);
        return () -> unsubscribe(channel, onMessage);
    }

    /** Opens the connection and subscribes every channel; a failure is tried again at the next subscribe. */
    private void open() {
        try {
            StatefulRedisPubSubConnection<String, String> opened = connector.get();
            opened.addListener(new Messages());
            connection = opened;
        } catch (RuntimeException e) {
            LOG.debug("release subscription on {} cannot connect now; waiters poll", description, e);
            return;
        }
        listeners.keySet().forEach(channel -> send(channel, true));
    }

    /** SUBSCRIBE or UNSUBSCRIBE, not awaited: the confirmation arrives at {@link Messages}. */
    private void send(String channel, boolean subscribe) {
        try {
            if (subscribe) {
                connection.async().subscribe(channel);
            } else {
                connection.async().unsubscribe(channel);
            }
        } catch (RuntimeException e) {
            LOG.debug("(un)subscribing {} on {} failed; the reconnect restores it", channel, description, e);
        }
    }

    /**
     * Waits briefly until the server confirmed the subscription, so that a release right after the waiter's next
     * attempt is not missed. Not waiting longer is safe: the waiter polls, and a late confirmation calls it.
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
                confirmed.remove(channel); // a new waiter's SUBSCRIBE must wait for its own confirmation
            }
            if (connection != null && !closed) {
                send(channel, false);
            }
        }
    }

    /**
     * The subscription connection was lost: as with Jedis, every listener is called now (a release may have been
     * missed before the loss was noticed) and again once its channel is confirmed on the restored connection.
     */
    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> lost) {
        if (lost != connection || closed) {
            return;
        }
        Set<String> channels;
        synchronized (confirmed) {
            confirmed.clear();
            confirmedLate.addAll(listeners.keySet());
            channels = Set.copyOf(listeners.keySet());
        }
        channels.forEach(channel -> deliver(channel, null));
    }

    /**
     * The subscription connection is back (Lettuce re-subscribed what it had confirmed before this is called): the
     * channels it could not subscribe meanwhile are subscribed now; a second SUBSCRIBE of a channel changes nothing.
     */
    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> restored, SocketAddress server) {
        if (restored != connection) {
            return;
        }
        synchronized (lock) {
            if (closed) {
                return;
            }
            for (String channel : listeners.keySet()) {
                boolean subscribed;
                synchronized (confirmed) {
                    subscribed = confirmed.contains(channel);
                }
                if (!subscribed) {
                    send(channel, true);
                }
            }
        }
    }

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

    /** The server's messages and confirmations, on Lettuce's I/O thread. */
    private final class Messages extends RedisPubSubAdapter<String, String> {
        @Override
        public void message(String channel, String message) {
            deliver(channel, message);
        }

        @Override
        public void subscribed(String channel, long count) {
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
        public void unsubscribed(String channel, long count) {
            synchronized (confirmed) {
                confirmed.remove(channel);
            }
        }
    }

    @Override
    public void close() {
        StatefulRedisPubSubConnection<String, String> open;
        synchronized (lock) {
            closed = true;
            open = connection;
        }
        synchronized (confirmed) {
            confirmed.notifyAll();
        }
        if (open != null) {
            open.close();
        }
    }

}
