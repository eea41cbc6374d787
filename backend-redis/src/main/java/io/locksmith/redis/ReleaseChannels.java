package io.locksmith.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The listeners of the release channels one subscriber connection carries, and which of those channels the server
 * has confirmed: the part of the subscriber contract ({@link RedisCommands#subscribe}) that does not depend on the
 * Redis client. A channel whose subscription is confirmed only after {@code subscribe} returned, or again after the
 * connection was lost and restored, has its listeners called once with {@code null}, since a release published
 * meanwhile reached nobody. {@link JedisSubscriber} and {@link LettuceSubscriber} drive it from their connection's
 * events.
 */
final class ReleaseChannels {

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseChannels.class);
    private static final long CONFIRM_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final Map<String, List<Consumer<String>>> listeners = new ConcurrentHashMap<>();
    /** Channels the server confirmed on the current connection; its monitor also guards {@link #confirmedLate}. */
    private final Set<String> confirmed = new HashSet<>();
    /** Channels whose listeners are to be called when the server confirms them (see the class comment). */
    private final Set<String> confirmedLate = new HashSet<>();

    /** Adds a listener; true if it is the channel's first, so that the channel must be subscribed. */
    boolean add(String channel, Consumer<String> listener) {
        List<Consumer<String>> list = listeners.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>());
        boolean first = list.isEmpty();
        list.add(listener);
        return first;
    }

    /** Removes a listener; true if it was the channel's last, so that the channel must be unsubscribed. */
    boolean remove(String channel, Consumer<String> listener) {
        List<Consumer<String>> list = listeners.get(channel);
        if (list == null || !list.remove(listener) || !list.isEmpty()) {
            return false;
        }
        listeners.remove(channel);
        synchronized (confirmed) {
            confirmedLate.remove(channel);
            confirmed.remove(channel); // a new waiter's SUBSCRIBE must wait for its own confirmation
        }
        return true;
    }

    /** The channels with listeners now. */
    Set<String> channels() {
        return Set.copyOf(listeners.keySet());
    }

    boolean isConfirmed(String channel) {
        synchronized (confirmed) {
            return confirmed.contains(channel);
        }
    }

    /**
     * Waits briefly until the server confirmed the subscription, so that a release right after the waiter's next
     * attempt is not missed. Not waiting longer is safe: the waiter polls, and a late confirmation calls it.
     */
    void awaitConfirmed(String channel, BooleanSupplier closed) {
        long deadline = System.nanoTime() + CONFIRM_WAIT_NANOS;
        synchronized (confirmed) {
            while (!confirmed.contains(channel) && !closed.getAsBoolean()) {
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

    /** The server confirmed {@code channel}: its waiters stop waiting, and a late confirmation calls its listeners. */
    void confirmed(String channel) {
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

    /** The server confirmed the end of {@code channel}'s subscription. */
    void unconfirmed(String channel) {
        synchronized (confirmed) {
            confirmed.remove(channel);
        }
    }

    /**
     * The connection was lost: nothing is confirmed any more, and every channel's listeners are to be called when the
     * restored connection confirms it. Returns the channels, whose listeners the caller tells of a possible miss.
     */
    Set<String> lost() {
        synchronized (confirmed) {
            confirmed.clear();
            confirmedLate.addAll(listeners.keySet());
            return Set.copyOf(listeners.keySet());
        }
    }

    /** Calls the listeners of {@code channel} with {@code message}, {@code null} if one may have been missed. */
    void deliver(String channel, String message) {
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

    /** Calls every listener of {@code channels} with {@code null}: a release may have been missed. */
    void deliverMissed(Set<String> channels) {
        channels.forEach(channel -> deliver(channel, null));
    }

    /** Wakes every caller of {@link #awaitConfirmed} (the subscriber closes). */
    void wakeAll() {
        synchronized (confirmed) {
            confirmed.notifyAll();
        }
    }
}
