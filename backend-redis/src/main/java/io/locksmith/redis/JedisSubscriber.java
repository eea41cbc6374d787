package io.locksmith.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.exceptions.JedisException;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One subscriber connection per client that multiplexes the release channels of every lock somebody waits
 * for (its listeners and their confirmations in {@link ReleaseChannels}, shared with {@link LettuceSubscriber}): {@code SUBSCRIBE}/{@code UNSUBSCRIBE} as waiters come and go, on one thread started at the first
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

    private final Supplier<HostAndPort> primary;
    private final JedisClientConfig config;
    private final String description;
    private final ReleaseChannels channels = new ReleaseChannels();
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
            boolean first = channels.add(channel, onMessage);
            if (thread == null) {
                thread = new Thread(this::run, "locksmith-redis-subscriber");
                thread.setDaemon(true);
                thread.start();
            } else if (first && ready) {
                current.subscribe(channel);
            }
        }
        channels.awaitConfirmed(channel, () -> closed);
        return () -> unsubscribe(channel, onMessage);
    }

    private void unsubscribe(String channel, Consumer<String> onMessage) {
        synchronized (lock) {
            if (!channels.remove(channel, onMessage)) {
                return;
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
                channels.lost();
            }
            if (closed) {
                return;
            }
            // Releases published while we were away are lost: let every waiter check now.
            channels.deliverMissed(channels.channels());
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

    private final class PubSub extends JedisPubSub {
        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            if (KEEP_OPEN.equals(channel)) {
                synchronized (lock) {
                    ready = true;
                    Set<String> all = channels.channels();
                    if (!all.isEmpty()) {
                        subscribe(all.toArray(new String[0]));
                    }
                }
            }
            channels.confirmed(channel);
        }

        @Override
        public void onUnsubscribe(String channel, int subscribedChannels) {
            channels.unconfirmed(channel);
        }

        @Override
        public void onMessage(String channel, String message) {
            channels.deliver(channel, message);
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
        channels.wakeAll();
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
