package io.locksmith.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One Lettuce pub/sub connection per client that multiplexes the release channels of every lock somebody waits for,
 * with the listeners and confirmations in {@link ReleaseChannels}, as {@link JedisSubscriber}: a channel whose subscription the server confirms only after
 * {@link #subscribe} returned, or again after the connection was lost and restored, has its listeners called once
 * with {@code null}, since a release published meanwhile reached nobody (after a loss, they are also called when it
 * is noticed). Lettuce reconnects the connection and
 * re-subscribes the channels it had confirmed; the channels whose {@code SUBSCRIBE} it rejected while disconnected
 * are subscribed again here when it is back. Waiters also poll with backoff, so a missed message costs latency, never
 * the lock.
 */
final class LettuceSubscriber implements AutoCloseable, RedisConnectionStateListener {

    private static final Logger LOG = LoggerFactory.getLogger(LettuceSubscriber.class);

    private final Supplier<StatefulRedisPubSubConnection<String, String>> connector;
    private final String description;
    private final ReleaseChannels channels = new ReleaseChannels();
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
            boolean first = channels.add(channel, onMessage);
            if (connection == null) {
                open(); // subscribes every channel with a listener, this one included
            } else if (first) {
                send(channel, true);
            }
        }
        channels.awaitConfirmed(channel, () -> closed);
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
        channels.channels().forEach(channel -> send(channel, true));
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

    private void unsubscribe(String channel, Consumer<String> onMessage) {
        synchronized (lock) {
            if (channels.remove(channel, onMessage) && connection != null && !closed) {
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
        channels.deliverMissed(channels.lost());
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
            for (String channel : channels.channels()) {
                if (!channels.isConfirmed(channel)) {
                    send(channel, true);
                }
            }
        }
    }

    /** The server's messages and confirmations, on Lettuce's I/O thread. */
    private final class Messages extends RedisPubSubAdapter<String, String> {
        @Override
        public void message(String channel, String message) {
            channels.deliver(channel, message);
        }

        @Override
        public void subscribed(String channel, long count) {
            channels.confirmed(channel);
        }

        @Override
        public void unsubscribed(String channel, long count) {
            channels.unconfirmed(channel);
        }
    }

    @Override
    public void close() {
        StatefulRedisPubSubConnection<String, String> open;
        synchronized (lock) {
            closed = true;
            open = connection;
        }
        channels.wakeAll();
        if (open != null) {
            open.close();
        }
    }

}
