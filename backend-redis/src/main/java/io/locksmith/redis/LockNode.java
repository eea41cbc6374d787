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
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock protocol on one Redis deployment: runs the scripts by SHA (with the text as fallback) and reads
 * their replies. Everything here is the same for Jedis and Redisson; {@link RedisCommands} is the transport.
 */
final class LockNode implements AutoCloseable {

    /**
     * What {@code acquire.lua} answered, or what a handoff message granted. {@code replicasAcknowledged} is -1 when no
     * WAIT was asked for; {@code validity} is how long from the call the store keeps the lock for the owner.
     */
    record Acquired(boolean granted, long token, int replicasAcknowledged, Duration validity) {
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
     * The owners of this client that may have a place in a queue on this node: from their first waiting attempt that
     * found the lock taken until they are granted, cancelled or abandoned. A handoff message wakes this client's waiters only
     * when it names one of them, so a release does not send every other client's waiter to the store.
     */
    private final Map<String, Waiting> waitingHere = new ConcurrentHashMap<>();
    /** The expiry watches of this node's subscriptions, by name ({@link #subscribe}). */
    private final Map<String, Set<ExpiryWatch>> watches = new ConcurrentHashMap<>();

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
     * How much shorter than its TTL a lock taken from a handoff message may be on the client: the time since the
     * waiter's last attempt, from which its validity counts (the handoff came after it). Beyond this share of the TTL
     * the waiter confirms with a request instead, whose validity counts from that request; the client's drift margin
     * (1% plus 2 ms) is of the same size.
     */
    private static final int LOCAL_GRANT_MAX_SHARE_OF_TTL = 100;

    private static final String WAITER_PLACE_MILLIS = Long.toString(WAITER_PLACE.toMillis());

    /**
     * Takes the lock, or keeps the caller's place in the name's queue. A waiter that a release handed the lock to
     * since its last attempt takes it from the release's message without a request, when the store acknowledges
     * writes alone (no {@code WAIT}: the handoff was not waited for) and its last attempt is recent enough: the
     * handoff came after that attempt reached the server (its token is above the counter the attempt read), so the
     * store keeps the lock for the TTL from a moment after that attempt was sent.
     *
     * @param queueIfTaken whether the caller will wait, so that a taken lock keeps it a place in the name's queue
     *                     (and a release hands the lock to it in arrival order); false for one attempt, and for
     *                     RedLock, whose grant needs a majority that no single node can hand over
     */
    Acquired acquire(String name, Owner owner, Duration ttl, boolean queueIfTaken) {
        long ttlMillis = millis(ttl);
        // Known from the owner's first attempt that found the lock taken; a free lock's attempt touches nothing here.
        Waiting waiting = queueIfTaken ? waitingHere.get(owner.id()) : null;
        if (waiting != null && ack == null) {
            Acquired handed = waiting.handedSinceLastAttempt(ttlMillis, System.nanoTime());
            if (handed != null) {
                waitingHere.remove(owner.id());
                return handed;
            }
        }
        long sentAt = System.nanoTime();
        Reply reply = run(LuaScript.ACQUIRE, List.of(RedisLockKeys.lockKey(name), RedisLockKeys.fenceKey(name),
                        RedisLockKeys.abandonedKey(name, owner.id()), RedisLockKeys.queueKey(name),
                        RedisLockKeys.waitingKey(name)),
                List.of(owner.id(), encoded(owner.holder()), Long.toString(ttlMillis),
                        queueIfTaken ? WAITER_PLACE_MILLIS : "0"),
                ack);
        List<?> values = list(reply.value(), LuaScript.ACQUIRE);
        boolean granted = number(values.get(0)) == 1;
        if (granted) {
            if (waiting != null) {
                waitingHere.remove(owner.id());
            }
        } else if (queueIfTaken && values.size() > 2) {
            // Kept from the first failed attempt on: a handoff message before this reply can only be for a waiter that
            // has not parked yet, and the shared client's next attempt comes at once after its first and finds the
            // lock its own; every later attempt is made with the entry in place, so its message is kept.
            waitingHere.computeIfAbsent(owner.id(), id -> new Waiting()).attempted(sentAt, number(values.get(2)));
            // The watch of this name's subscription learns the holder's TTL from the attempt: a release nobody queued
            // for publishes nothing, so a subscription kept from an earlier wait may still be sleeping until the TTL of
            // a holder long gone (TCK R7.4).
            long heldFor = number(values.get(1));
            Set<ExpiryWatch> nameWatches = heldFor > 0 ? watches.get(name) : null;
            if (nameWatches != null) {
                nameWatches.forEach(watch -> watch.heldFor(Duration.ofMillis(heldFor)));
            }
        }
        return new Acquired(granted, granted ? number(values.get(1)) : -1, reply.replicasAcknowledged(), ttl);
    }

    /**
     * A waiter of this client on this node: its last attempt, and the handoff a release message reported for it. The
     * message and the attempt's reply come on different connections, in either order, so each is kept as it comes
     * and they are compared when the waiter asks again.
     */
    private static final class Waiting {
        /** When the last attempt that found the lock taken was sent, and the fencing counter it read. */
        private long lastAttemptSentAt;
        private long counterAtLastAttempt = Long.MAX_VALUE;
        /** The last handoff message for this owner, or null. */
        private Handoff handoff;

        synchronized void attempted(long sentAt, long counter) {
            lastAttemptSentAt = sentAt;
            counterAtLastAttempt = counter;
        }

        synchronized void handed(Handoff message) {
            handoff = message;
        }

        /**
         * The grant a handoff after the last attempt gave this owner, with its validity counted from that attempt, or
         * null: no such handoff (none, or one before the attempt: the attempt's counter is past its token), another
         * TTL than the one asked for, or an attempt too long ago.
         */
        synchronized Acquired handedSinceLastAttempt(long ttlMillis, long now) {
            Handoff message = handoff;
            if (message == null || message.token() <= counterAtLastAttempt || message.ttl().toMillis() != ttlMillis) {
                return null;
            }
            long sinceAttempt = now - lastAttemptSentAt;
            long ttlNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(ttlMillis);
            if (sinceAttempt < 0 || sinceAttempt > ttlNanos / LOCAL_GRANT_MAX_SHARE_OF_TTL) {
                return null;
            }
            return new Acquired(true, message.token(), -1, Duration.ofNanos(ttlNanos - sinceAttempt));
        }
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

    /**
     * Releases the owner's lock, handing it to the first live waiter of the name's queue if there is one.
     *
     * @param tellAll whether the release is published even when nobody queued for the lock: true where waiters keep no
     *                place in a queue (RedLock); false where every waiter does, so a lock nobody queued for has nobody
     *                to tell
     */
    boolean release(String name, String ownerId, boolean tellAll) {
        Reply reply = run(LuaScript.RELEASE, List.of(RedisLockKeys.lockKey(name), RedisLockKeys.fenceKey(name),
                        RedisLockKeys.queueKey(name), RedisLockKeys.waitingKey(name)),
                tellAll ? List.of(ownerId, "1") : List.of(ownerId), null);
        return number(reply.value()) == 1;
    }

    /**
     * Release after an acquire with an unknown outcome: deletes the owner's lock if there is one (handing it on),
     * takes the owner's place out of the queue, and makes sure a late copy of the acquire request is refused (the
     * owner id is never used again).
     */
    boolean releaseAbandoned(String name, String ownerId) {
        waitingHere.remove(ownerId);
        Reply reply = run(LuaScript.RELEASE_ABANDONED, List.of(RedisLockKeys.lockKey(name),
                RedisLockKeys.abandonedKey(name, ownerId), RedisLockKeys.fenceKey(name), RedisLockKeys.queueKey(name),
                RedisLockKeys.waitingKey(name)),
                List.of(ownerId, Long.toString(ABANDONED_MARKER.toMillis())),
                null);
        return number(reply.value()) == 1;
    }

    /**
     * A wait ended without the lock: takes the owner's place out of the queue, and frees (and hands on) a lock a
     * release handed the owner before it could confirm it.
     */
    void cancel(String name, String ownerId) {
        waitingHere.remove(ownerId);
        run(LuaScript.CANCEL, List.of(RedisLockKeys.lockKey(name), RedisLockKeys.fenceKey(name),
                        RedisLockKeys.queueKey(name), RedisLockKeys.waitingKey(name)),
                List.of(ownerId), null);
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

    /**
     * One script call per hash slot: on one primary every lock is in slot 0, so one call renews them all; on a Redis
     * Cluster a script may only touch one slot's keys ({@code CROSSSLOT} otherwise), so the locks of each slot are
     * renewed together, several slots side by side, and the results come back in the order of {@code requests}. Every group's replica
     * acknowledgement must hold, as for one call.
     */
    List<Boolean> renewAll(List<RenewRequest> requests) {
        Map<Integer, List<Integer>> bySlot = new java.util.LinkedHashMap<>();
        for (int i = 0; i < requests.size(); i++) {
            int slot = commands.slotOf(RedisLockKeys.lockKey(requests.get(i).grant().name()));
            bySlot.computeIfAbsent(slot, s -> new ArrayList<>()).add(i);
        }
        List<List<Integer>> groups = new ArrayList<>(bySlot.values());
        Boolean[] results = new Boolean[requests.size()];
        java.util.Queue<LockStoreException> failures = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.concurrent.atomic.AtomicInteger nextGroup = new java.util.concurrent.atomic.AtomicInteger();
        Runnable renewGroups = () -> {
            for (int g = nextGroup.getAndIncrement(); g < groups.size(); g = nextGroup.getAndIncrement()) {
                List<Integer> group = groups.get(g);
                try {
                    List<Boolean> renewed = renewInOneScript(group.stream().map(requests::get).toList());
                    for (int i = 0; i < group.size(); i++) {
                        results[group.get(i)] = renewed.get(i);
                    }
                } catch (LockStoreException e) {
                    // One shard failing over must not keep the other shards' locks from being renewed: the batch goes
                    // on, and fails as a whole at its end (the client renews it again; a renewal is safe to repeat).
                    failures.add(e);
                }
            }
        };
        if (groups.size() == 1) {
            renewGroups.run();
        } else {
            renewGroupsSideBySide(renewGroups, Math.min(SLOT_RENEWALS_AT_ONCE, groups.size()));
        }
        LockStoreException failure = failures.poll();
        if (failure != null) {
            failures.forEach(failure::addSuppressed);
            throw failure;
        }
        return java.util.Arrays.asList(results);
    }

    /**
     * How many slots' renewal scripts a batch runs at once on a Redis Cluster. One after the other, the slots of 50 locks
     * (each script followed by its {@code WAIT}) took longer than a 2 s lease's renewal margin in a CI run at load 15-20;
     * side by side they take about one round trip per {@value} slots, within each node's pool.
     */
    private static final int SLOT_RENEWALS_AT_ONCE = 8;

    private static final java.util.concurrent.ExecutorService SLOT_RENEWALS =
            java.util.concurrent.Executors.newCachedThreadPool(runnable -> {
                Thread thread = new Thread(runnable, "locksmith-redis-slot-renewal");
                thread.setDaemon(true);
                return thread;
            });

    /**
     * Runs {@code renewGroups} on {@code workers} threads (the caller's among them) and returns when all are done; each
     * script is bounded by the transport's time-outs, so this is too.
     */
    private void renewGroupsSideBySide(Runnable renewGroups, int workers) {
        List<java.util.concurrent.Future<?>> helpers = new ArrayList<>();
        for (int i = 1; i < workers; i++) {
            helpers.add(SLOT_RENEWALS.submit(renewGroups));
        }
        renewGroups.run();
        boolean interrupted = false;
        for (java.util.concurrent.Future<?> helper : helpers) {
            while (true) {
                try {
                    helper.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // the scripts under way end by their time-outs; the flag is restored below
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new LockStoreException(commands.describe() + ": renewing a slot's locks failed", e.getCause());
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private List<Boolean> renewInOneScript(List<RenewRequest> requests) {
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
        // A SCAN cursor belongs to one server: on a Redis Cluster each primary's keyspace is walked on its own.
        for (RedisCommands primary : commands.primaries()) {
            String cursor = "0";
            do {
                Reply reply = run(primary, LuaScript.SCAN_LOCKS, List.of(), List.of(cursor, pattern), null);
                List<?> values = list(reply.value(), LuaScript.SCAN_LOCKS);
                cursor = String.valueOf(values.get(0));
                for (Object key : values.subList(1, values.size())) {
                    String name = RedisLockKeys.nameOf(String.valueOf(key));
                    if (name != null && name.startsWith(prefix)) {
                        names.add(name);
                    }
                }
            } while (!cursor.equals("0"));
        }
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
     *
     * <p>A release that handed the lock to a waiter publishes {@code granted OWNER TTL_MS TOKEN}: only the client of
     * that waiter is told (its other waiters and every other client's would find the lock taken), the waiter may take
     * the lock from it ({@link #acquire}), and the watch takes the handed lock's TTL from the message instead of
     * reading it.
     */
    AutoCloseable subscribe(String name, Runnable onRelease) {
        ExpiryWatch watch = new ExpiryWatch(name, onRelease);
        AutoCloseable released = commands.subscribe(RedisLockKeys.releaseChannel(name), message -> {
            Handoff handoff = Handoff.parse(message);
            if (handoff == null) {
                // A release, or a message that may have been missed: after it the next holder's TTL is another one,
                // so the watch reads it again (it slept until the TTL of the holder it saw, and missed the expiry of
                // a shorter lease taken after a release; TCK R7.4).
                onRelease.run();
                watch.rearm();
                return;
            }
            watch.heldFor(handoff.ttl());
            Waiting waiting = waitingHere.get(handoff.owner());
            if (waiting != null) {
                waiting.handed(handoff);
                onRelease.run();
            }
        });
        watches.compute(name, (n, set) -> {
            Set<ExpiryWatch> added = set == null ? ConcurrentHashMap.newKeySet() : set;
            added.add(watch);
            return added;
        });
        watch.schedule(Duration.ZERO);
        return () -> {
            watch.cancel();
            watches.computeIfPresent(name, (n, set) -> set.remove(watch) && set.isEmpty() ? null : set);
            released.close();
        };
    }

    /** A {@code granted OWNER TTL_MS TOKEN} message of {@code handoff.lua}. */
    record Handoff(String owner, Duration ttl, long token) {
        private static final String PREFIX = "granted ";

        /** The handoff a message reports, or null for any other message (a release, or none). */
        static Handoff parse(String message) {
            if (message == null || !message.startsWith(PREFIX)) {
                return null;
            }
            String[] parts = message.substring(PREFIX.length()).split(" ");
            if (parts.length != 3) {
                return null;
            }
            try {
                return new Handoff(parts[0], Duration.ofMillis(Long.parseLong(parts[1])), Long.parseLong(parts[2]));
            } catch (NumberFormatException e) {
                return null;
            }
        }
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
        private volatile boolean sawHeld;

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

        /**
         * A holder took the lock for {@code ttl} from about now: the next read is when that runs out, or earlier. A read
         * already due before then stays as it is (it finds the new holder and reads its TTL), which spares waking the
         * watch's thread at every handoff of a busy name: only a shorter lease than the last moves the read.
         */
        void heldFor(Duration ttl) {
            java.util.concurrent.Future<?> scheduled = next;
            if (scheduled instanceof java.util.concurrent.ScheduledFuture<?> due && !due.isDone()) {
                long delay = due.getDelay(java.util.concurrent.TimeUnit.NANOSECONDS);
                if (delay > 0 && delay <= ttl.toNanos()) {
                    sawHeld = true;
                    return;
                }
            }
            onWatchThread(() -> {
                sawHeld = true;
                schedule(ttl.plusMillis(1));
            });
        }

        /** Forgets the holder it saw and reads the lock again now (on the watch's own thread). */
        void rearm() {
            if (cancelled) {
                return;
            }
            onWatchThread(() -> {
                sawHeld = false;
                check();
            });
        }

        /** Runs {@code step} on the watch's thread in place of the check scheduled next. */
        private void onWatchThread(Runnable step) {
            if (cancelled) {
                return;
            }
            try {
                EXPIRY_WATCHES.execute(() -> {
                    java.util.concurrent.Future<?> scheduled = next;
                    if (scheduled != null) {
                        scheduled.cancel(false);
                    }
                    if (!cancelled) {
                        step.run();
                    }
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

    /**
     * Fails fast, at creation, if the server is unreachable, refuses the credentials, or (Redis 7.0 and later) its
     * ACL refuses this user a command, key or channel the lock protocol uses ({@link RedisAcl}).
     */
    void ping() {
        // The rights first, by a script that names no key (so a missing key pattern cannot refuse the script itself):
        // a user that lacks one learns which, instead of Redis' "can't run this command" from inside a lock script.
        List<RedisAcl.Check> checks = RedisAcl.checks(ack != null, commands.ownCommands());
        List<RedisCommands> primaries = commands.primaries();
        Reply refused = run(primaries.isEmpty() ? commands : primaries.get(0), LuaScript.CHECK_ACL, List.of(),
                RedisAcl.arguments(checks), null);
        RedisAcl.requireAllowed(checks, list(refused.value(), LuaScript.CHECK_ACL), commands.describe());
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
        return run(commands, script, keys, args, replicaAck);
    }

    private static Reply run(RedisCommands target, LuaScript script, List<String> keys, List<String> args,
                             ReplicaAck replicaAck) {
        // The NOSCRIPT fallback is part of the same call: under the transport's call limit, if it has one.
        return target.oneCall(() -> {
            try {
                return target.evalsha(script.sha(), keys, args, replicaAck);
            } catch (RedisCommands.NoScriptException e) {
                return target.eval(script.text(), keys, args, replicaAck);
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

    /** The provider calls this node's transport serves at once (see {@link RedisCommands#maxConcurrentCalls()}). */
    int maxConcurrentCalls() {
        return commands.maxConcurrentCalls();
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
