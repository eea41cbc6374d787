package io.locksmith.redis;

import io.locksmith.HolderIdentity;
import io.locksmith.LockStoreException;
import io.locksmith.redis.RedisCommands.ReplicaAck;
import io.locksmith.redis.RedisCommands.Reply;
import io.locksmith.spi.HolderCodec;
import io.locksmith.spi.Owner;
import io.locksmith.spi.RenewRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The lock protocol on one Redis deployment: runs the scripts by SHA (with the text as fallback) and reads
 * their replies. Everything here is the same for Jedis and Redisson; {@link RedisCommands} is the transport.
 */
final class LockNode implements AutoCloseable {

    /** What {@code acquire.lua} answered. {@code replicasAcknowledged} is -1 when no WAIT was asked for. */
    record Acquired(boolean granted, long token, int replicasAcknowledged) {
    }

    /** What {@code inspect.lua} answered for a held lock. */
    record Holding(String ownerId, HolderIdentity holder, long token, Duration remaining) {
    }

    /**
     * How long an abandoned acquire stays refused: far longer than a request can wait in a socket buffer or
     * a paused server before Redis runs it.
     */
    static final Duration ABANDONED_MARKER = Duration.ofMinutes(10);

    private final RedisCommands commands;
    private final ReplicaAck ack;

    /**
     * @param ack replicas that must acknowledge acquire and renew ({@code WAIT}), or {@code null}
     */
    LockNode(RedisCommands commands, ReplicaAck ack) {
        this.commands = commands;
        this.ack = ack;
    }

    /**
     * How long a waiter's place in the name's queue stays live after its last attempt. A waiting client tries again
     * at least every {@code maxPollInterval} (1 s by default) while it waits, and cancels its place when the wait
     * ends, so only a waiter that died (or polls less often than this) lets its place lapse: a release then passes
     * it over. Long enough for the TCK's waiters, which poll every few seconds to show a missing notification.
     */
    static final Duration WAITER_PLACE = Duration.ofSeconds(10);

    /**
     * The longest a release holds the lock for the waiter it handed it to, until that waiter confirms it with its
     * next attempt (which sets the waiter's own TTL). A live waiter confirms within a notification, or at its next
     * poll if the notification was lost; a waiter that died costs its successors this much at most.
     */
    static final Duration RESERVATION = Duration.ofSeconds(5);

    private static final String WAITER_PLACE_MILLIS = Long.toString(WAITER_PLACE.toMillis());
    private static final String RESERVATION_MILLIS = Long.toString(RESERVATION.toMillis());

    /**
     * @param queueIfTaken whether the caller will wait, so that a taken lock keeps it a place in the name's queue
     *                     (and a release hands the lock to it in arrival order); false for one attempt, and for
     *                     RedLock, whose grant needs a majority that no single node can hand over
     */
    Acquired acquire(String name, Owner owner, Duration ttl, boolean queueIfTaken) {
        Reply reply = run(LuaScript.ACQUIRE, List.of(RedisLockKeys.lockKey(name), RedisLockKeys.fenceKey(name),
                        RedisLockKeys.abandonedKey(name, owner.id()), RedisLockKeys.queueKey(name),
                        RedisLockKeys.waitingKey(name)),
                List.of(owner.id(), encoded(owner.holder()), Long.toString(millis(ttl)),
                        queueIfTaken ? WAITER_PLACE_MILLIS : "0", RedisLockKeys.releaseChannel(name), RESERVATION_MILLIS),
                ack);
        List<?> values = list(reply.value(), LuaScript.ACQUIRE);
        boolean granted = number(values.get(0)) == 1;
        return new Acquired(granted, granted ? number(values.get(1)) : -1, reply.replicasAcknowledged());
    }

    /** The last identity this thread encoded, and its encoding: the shared client reuses a thread's identity. */
    private final ThreadLocal<Object[]> lastEncoded = ThreadLocal.withInitial(() -> new Object[2]);

    private String encoded(HolderIdentity holder) {
        Object[] last = lastEncoded.get();
        if (last[0] != holder) {
            last[1] = HolderCodec.encode(holder);
            last[0] = holder;
        }
        return (String) last[1];
    }

    /** Releases the owner's lock, handing it to the first live waiter of the name's queue if there is one. */
    boolean release(String name, String ownerId) {
        Reply reply = run(LuaScript.RELEASE, List.of(RedisLockKeys.lockKey(name), RedisLockKeys.fenceKey(name),
                        RedisLockKeys.queueKey(name), RedisLockKeys.waitingKey(name)),
                List.of(ownerId, RedisLockKeys.releaseChannel(name), RESERVATION_MILLIS), null);
        return number(reply.value()) == 1;
    }

    /**
     * Release after an acquire with an unknown outcome: deletes the owner's lock if there is one (handing it on),
     * takes the owner's place out of the queue, and makes sure a late copy of the acquire request is refused (the
     * owner id is never used again).
     */
    boolean releaseAbandoned(String name, String ownerId) {
        Reply reply = run(LuaScript.RELEASE_ABANDONED, List.of(RedisLockKeys.lockKey(name),
                RedisLockKeys.abandonedKey(name, ownerId), RedisLockKeys.fenceKey(name), RedisLockKeys.queueKey(name),
                RedisLockKeys.waitingKey(name)),
                List.of(ownerId, RedisLockKeys.releaseChannel(name), Long.toString(ABANDONED_MARKER.toMillis()),
                        RESERVATION_MILLIS), null);
        return number(reply.value()) == 1;
    }

    /**
     * A wait ended without the lock: takes the owner's place out of the queue, and frees (and hands on) a lock a
     * release handed the owner before it could confirm it.
     */
    void cancel(String name, String ownerId) {
        run(LuaScript.CANCEL, List.of(RedisLockKeys.lockKey(name), RedisLockKeys.fenceKey(name),
                        RedisLockKeys.queueKey(name), RedisLockKeys.waitingKey(name)),
                List.of(ownerId, RedisLockKeys.releaseChannel(name), RESERVATION_MILLIS), null);
    }

    /**
     * @throws ReplicasNotAcknowledged if the renewal was made but not acknowledged by enough replicas
     */
    boolean renew(String name, String ownerId, Duration ttl) {
        Reply reply = run(LuaScript.RENEW, List.of(RedisLockKeys.lockKey(name)),
                List.of(ownerId, Long.toString(millis(ttl))), ack);
        boolean renewed = number(reply.value()) == 1;
        if (renewed) {
            requireAcknowledged(reply.replicasAcknowledged(), name);
        }
        return renewed;
    }

    /** One script call for all: fine on a single primary; Redis Cluster would need one call per slot. */
    List<Boolean> renewAll(List<RenewRequest> requests) {
        List<String> keys = new ArrayList<>(requests.size());
        List<String> args = new ArrayList<>(requests.size() * 2);
        for (RenewRequest request : requests) {
            keys.add(RedisLockKeys.lockKey(request.grant().name()));
            args.add(request.grant().owner().id());
            args.add(Long.toString(millis(request.ttl())));
        }
        Reply reply = run(LuaScript.RENEW_ALL, keys, args, ack);
        List<?> values = list(reply.value(), LuaScript.RENEW_ALL);
        if (values.size() != requests.size()) {
            throw new LockStoreException(commands.describe() + " answered " + values.size() + " renewal results for "
                    + requests.size() + " locks", null);
        }
        List<Boolean> results = new ArrayList<>(values.size());
        boolean any = false;
        for (Object value : values) {
            boolean renewed = number(value) == 1;
            any |= renewed;
            results.add(renewed);
        }
        if (any) {
            requireAcknowledged(reply.replicasAcknowledged(), null);
        }
        return results;
    }

    /** @return the holding, or {@code null} if the lock is free */
    Holding inspect(String name) {
        Reply reply = run(LuaScript.INSPECT, List.of(RedisLockKeys.lockKey(name)), List.of(), null);
        List<?> values = list(reply.value(), LuaScript.INSPECT);
        if (values.isEmpty()) {
            return null;
        }
        long pttl = number(values.get(3));
        return new Holding(String.valueOf(values.get(0)), HolderCodec.decode(String.valueOf(values.get(1))),
                number(values.get(2)), pttl < 0 ? null : Duration.ofMillis(pttl));
    }

    /**
     * The names of the lock hashes on this node whose names start with {@code prefix}, one SCAN step per
     * script call. A name may be held or already expired by the time it is inspected.
     */
    SortedSet<String> lockNames(String prefix) {
        SortedSet<String> names = new TreeSet<>();
        String pattern = RedisLockKeys.lockKeyPattern(prefix);
        String cursor = "0";
        do {
            Reply reply = run(LuaScript.SCAN_LOCKS, List.of(), List.of(cursor, pattern), null);
            List<?> values = list(reply.value(), LuaScript.SCAN_LOCKS);
            cursor = String.valueOf(values.get(0));
            for (Object key : values.subList(1, values.size())) {
                String name = RedisLockKeys.nameOf(String.valueOf(key));
                if (name != null && name.startsWith(prefix)) {
                    names.add(name);
                }
            }
        } while (!cursor.equals("0"));
        return names;
    }

    /** RedLock: sets the holding's token and raises the counter to it; false if the lock is no longer the owner's. */
    boolean raiseFence(String name, String ownerId, long token) {
        Reply reply = run(LuaScript.RAISE_FENCE, List.of(RedisLockKeys.lockKey(name), RedisLockKeys.fenceKey(name)),
                List.of(ownerId, Long.toString(token)), ack);
        return number(reply.value()) == 1;
    }

    void registryPut(String key, String value, Duration ttl) {
        run(LuaScript.REGISTRY_PUT, List.of(RedisLockKeys.registryKey(key), RedisLockKeys.registryIndex()),
                List.of(value, ttl == null ? "" : Long.toString(millis(ttl))), null);
    }

    /** The live records under {@code prefix}, as key-value pairs in registry keys (without the Redis prefix). */
    java.util.Map<String, String> registryList(String prefix) {
        Reply reply = run(LuaScript.REGISTRY_LIST, List.of(RedisLockKeys.registryIndex()),
                List.of(RedisLockKeys.registryKey(prefix)), null);
        List<?> values = list(reply.value(), LuaScript.REGISTRY_LIST);
        java.util.Map<String, String> records = new java.util.TreeMap<>();
        int strip = RedisLockKeys.registryKey("").length();
        for (int i = 0; i + 1 < values.size(); i += 2) {
            records.put(String.valueOf(values.get(i)).substring(strip), String.valueOf(values.get(i + 1)));
        }
        return records;
    }

    void registryRemove(String key) {
        run(LuaScript.REGISTRY_REMOVE, List.of(RedisLockKeys.registryKey(key), RedisLockKeys.registryIndex()),
                List.of(), null);
    }

    /**
     * Calls {@code onRelease} when the lock is released (the release script publishes on its channel) and when
     * it expires: Redis publishes nothing when a key's TTL runs out (keyspace notifications are a server setting
     * we cannot assume), so while the subscription lasts a timer reads the lock's remaining TTL and calls back
     * once it is gone. Without it a waiter learns of a crashed holder's expiry only at its next poll (R7.8).
     */
    AutoCloseable subscribe(String name, Runnable onRelease) {
        ExpiryWatch watch = new ExpiryWatch(name, onRelease);
        // After a release the next holder's TTL is another one: the watch reads it again (it slept until the TTL of
        // the holder it saw, and missed the expiry of a shorter lease taken after a release; TCK R7.4).
        AutoCloseable released = commands.subscribe(RedisLockKeys.releaseChannel(name), () -> {
            onRelease.run();
            watch.rearm();
        });
        watch.schedule(Duration.ZERO);
        return () -> {
            watch.cancel();
            released.close();
        };
    }

    private static final java.util.concurrent.ScheduledExecutorService EXPIRY_WATCHES =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "locksmith-redis-expiry-watch");
                thread.setDaemon(true);
                return thread;
            });

    /** Reads a lock's remaining TTL and calls back when it ran out, until cancelled. */
    private final class ExpiryWatch {
        private final String name;
        private final Runnable onExpiry;
        private volatile boolean cancelled;
        private volatile java.util.concurrent.Future<?> next;
        private boolean sawHeld;

        ExpiryWatch(String name, Runnable onExpiry) {
            this.name = name;
            this.onExpiry = onExpiry;
        }

        void schedule(Duration delay) {
            if (!cancelled) {
                next = EXPIRY_WATCHES.schedule(this::check, delay.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
            }
        }

        private void check() {
            if (cancelled) {
                return;
            }
            Holding holding;
            try {
                holding = inspect(name);
            } catch (RuntimeException e) {
                schedule(Duration.ofSeconds(1)); // the waiter's own poll covers the gap
                return;
            }
            if (holding == null) {
                if (sawHeld) {
                    sawHeld = false;
                    onExpiry.run();
                }
                // Watch whoever takes it next, for as long as somebody waits.
                schedule(Duration.ofMillis(100));
                return;
            }
            if (holding.remaining() == null) {
                return; // no TTL on this key: nothing will expire
            }
            sawHeld = true;
            schedule(holding.remaining().plusMillis(1));
        }

        /** Forgets the holder it saw and reads the lock again now (on the watch's own thread). */
        void rearm() {
            if (cancelled) {
                return;
            }
            try {
                EXPIRY_WATCHES.execute(() -> {
                    java.util.concurrent.Future<?> scheduled = next;
                    if (scheduled != null) {
                        scheduled.cancel(false);
                    }
                    sawHeld = false;
                    check();
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // shutting down
            }
        }

        void cancel() {
            cancelled = true;
            java.util.concurrent.Future<?> scheduled = next;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
        }
    }

    /** Fails fast, at creation, if the server is unreachable or refuses the credentials. */
    void ping() {
        run(LuaScript.INSPECT, List.of(RedisLockKeys.lockKey("locksmith-ping")), List.of(), null);
    }

    ReplicaAck replicaAck() {
        return ack;
    }

    String describe() {
        return commands.describe();
    }

    @Override
    public void close() {
        commands.close();
    }

    /** The write reached the primary but fewer replicas than asked for confirmed it. */
    static final class ReplicasNotAcknowledged extends LockStoreException {
        private static final long serialVersionUID = 1L;

        ReplicasNotAcknowledged(String lockName, String message) {
            super(lockName, message, null);
        }
    }

    void requireAcknowledged(int acknowledged, String lockName) {
        if (ack != null && acknowledged < ack.replicas()) {
            throw new ReplicasNotAcknowledged(lockName, commands.describe() + ": only " + acknowledged + " of "
                    + ack.replicas() + " replica(s) acknowledged the write within " + ack.timeout().toMillis() + " ms");
        }
    }

    private Reply run(LuaScript script, List<String> keys, List<String> args, ReplicaAck replicaAck) {
        // The NOSCRIPT fallback is part of the same call: under the transport's call limit, if it has one.
        return commands.oneCall(() -> {
            try {
                return commands.evalsha(script.sha(), keys, args, replicaAck);
            } catch (RedisCommands.NoScriptException e) {
                return commands.eval(script.text(), keys, args, replicaAck);
            }
        });
    }

    /**
     * The longest one call of the provider on this node can take: the transport's limit for one script (the
     * provider makes one per call), where it keeps one and no {@code WAIT} follows (a second request).
     */
    java.util.Optional<Duration> callTimeLimit() {
        return ack == null ? commands.callTimeLimit() : java.util.Optional.empty();
    }

    private List<?> list(Object value, LuaScript script) {
        if (value instanceof List<?> list) {
            return list;
        }
        throw new LockStoreException(commands.describe() + " answered " + value + " to the " + script.name()
                + " script; expected an array", null);
    }

    private long number(Object value) {
        if (value instanceof Number number) {
            return number.longValue();
        }
        if (value instanceof String text) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException ignored) {
                // reported below
            }
        }
        throw new LockStoreException(commands.describe() + " answered '" + value + "' where a number was expected", null);
    }

    /** Redis counts TTLs in whole milliseconds; a partial millisecond is rounded up, never down. */
    static long millis(Duration ttl) {
        long millis = ttl.toMillis();
        return ttl.minusMillis(millis).isZero() ? Math.max(1, millis) : millis + 1;
    }
}
