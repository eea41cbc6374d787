package io.locksmith.tck.selftest;

import io.locksmith.HolderIdentity;
import io.locksmith.LockInfo;
import io.locksmith.spi.Owner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A small lock store for the kit's self-tests, correct unless given {@link Flaw}s: TTLs on the monotonic
 * clock, owner-checked release and renew, one store-wide token counter, an optional fair queue, release
 * notification. Written apart from mem:// so that a flaw is one visible line here.
 */
final class ToyStore {

    private record Entry(String ownerId, HolderIdentity holder, long token, long expiresAt) {
    }

    private final Set<Flaw> flaws;
    private final boolean fair;
    /** Locks live as long as their owner's session (a ZooKeeper ephemeral node): no TTL in the store. */
    private final boolean sessionBound;
    /** Declares ACCESS_CONTROL: {@link ToyKits.AccessControlledToyTck}'s raw sessions check their identity. */
    private final boolean accessControl;
    private final Map<String, Entry> locks = new HashMap<>();
    private final Map<String, LinkedHashMap<String, HolderIdentity>> queues = new HashMap<>();
    private final Map<String, List<Runnable>> listeners = new ConcurrentHashMap<>();
    private long lastToken;

    ToyStore(Set<Flaw> flaws, boolean fair) {
        this(flaws, fair, false);
    }

    ToyStore(Set<Flaw> flaws, boolean fair, boolean sessionBound) {
        this(flaws, fair, sessionBound, false);
    }

    ToyStore(Set<Flaw> flaws, boolean fair, boolean sessionBound, boolean accessControl) {
        this.flaws = flaws.isEmpty() ? EnumSet.noneOf(Flaw.class) : EnumSet.copyOf(flaws);
        this.fair = fair;
        this.sessionBound = sessionBound;
        this.accessControl = accessControl;
    }

    boolean hasAccessControl() {
        return accessControl;
    }

    boolean isSessionBound() {
        return sessionBound;
    }

    private boolean hasTtl() {
        return !sessionBound && !has(Flaw.ACQUIRE_WITHOUT_TTL);
    }

    boolean has(Flaw flaw) {
        return flaws.contains(flaw);
    }

    boolean isFair() {
        return fair;
    }

    private Entry live(String name, long now) {
        Entry entry = locks.get(name);
        if (entry != null && now - entry.expiresAt >= 0) {
            locks.remove(name);
            return null;
        }
        return entry;
    }

    long tryAcquire(String name, Owner owner, Duration ttl, boolean willWait) {
        if (has(Flaw.CHECK_THEN_SET)) {
            synchronized (this) {
                if (live(name, System.nanoTime()) != null) {
                    return -1;
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            synchronized (this) {
                return grant(name, owner, ttl);
            }
        }
        synchronized (this) {
            if (live(name, System.nanoTime()) != null) {
                if (fair && willWait) {
                    queues.computeIfAbsent(name, k -> new LinkedHashMap<>()).putIfAbsent(owner.id(), owner.holder());
                }
                return -1;
            }
            if (fair) {
                LinkedHashMap<String, HolderIdentity> queue = queues.computeIfAbsent(name, k -> new LinkedHashMap<>());
                if (!queue.isEmpty() && !queue.keySet().iterator().next().equals(owner.id())) {
                    if (willWait) {
                        queue.putIfAbsent(owner.id(), owner.holder());
                    }
                    return -1;
                }
                queue.remove(owner.id());
            }
            return grant(name, owner, ttl);
        }
    }

    private long grant(String name, Owner owner, Duration ttl) {
        long token;
        if (has(Flaw.TOKEN_RESTARTS_PER_HOLDING)) {
            token = 1;
        } else {
            token = ++lastToken;
        }
        locks.put(name, new Entry(owner.id(), owner.holder(), token, expiry(ttl)));
        // A subscriber that came before this grant must hear of its expiry too (R7.4, R7.8).
        watchExpiry(name);
        return token;
    }

    private long expiry(Duration ttl) {
        if (!hasTtl()) {
            return System.nanoTime() + TimeUnit.DAYS.toNanos(365);
        }
        long nanos = has(Flaw.EARLY_EXPIRY) ? ttl.toNanos() / 20 : ttl.toNanos();
        return System.nanoTime() + nanos;
    }

    synchronized boolean renew(String name, String ownerId, Duration ttl) {
        Entry entry = live(name, System.nanoTime());
        boolean ours = entry != null && entry.ownerId.equals(ownerId);
        if (has(Flaw.RENEW_WITHOUT_OWNER_CHECK) && entry != null) {
            ours = true;
        }
        if (ours) {
            locks.put(name, new Entry(entry.ownerId, entry.holder, entry.token,
                    hasTtl() ? expiry(ttl) : entry.expiresAt));
        }
        return ours || has(Flaw.RENEW_ALWAYS_TRUE);
    }

    boolean release(String name, String ownerId) {
        synchronized (this) {
            Entry entry = live(name, System.nanoTime());
            if (entry == null) {
                return false;
            }
            if (!entry.ownerId.equals(ownerId) && !has(Flaw.RELEASE_WITHOUT_OWNER_CHECK)) {
                return false;
            }
            locks.remove(name);
        }
        notifyListeners(name);
        return true;
    }

    synchronized void cancel(String name, String ownerId) {
        if (has(Flaw.CANCEL_LEAVES_QUEUE_ENTRY)) {
            return;
        }
        LinkedHashMap<String, HolderIdentity> queue = queues.get(name);
        if (queue != null) {
            queue.remove(ownerId);
        }
    }

    synchronized LockInfo inspect(String name) {
        long now = System.nanoTime();
        Entry entry = live(name, now);
        if (entry == null) {
            return null;
        }
        List<HolderIdentity> waiters = new ArrayList<>(queues.getOrDefault(name, new LinkedHashMap<>()).values());
        // Without a TTL there is no time to live to show (Redis answers TTL -1).
        Duration remaining = hasTtl() ? Duration.ofNanos(entry.expiresAt - now) : null;
        return new LockInfo(name, entry.holder, entry.token, remaining, waiters);
    }

    /** The held locks whose names start with {@code prefix}, sorted by name. */
    synchronized List<LockInfo> list(String prefix) {
        List<LockInfo> held = new ArrayList<>();
        for (String name : new java.util.TreeSet<>(locks.keySet())) {
            LockInfo info = name.startsWith(prefix) ? inspect(name) : null;
            if (info != null) {
                held.add(info);
            }
        }
        return held;
    }

    // ---------------------------------------------------------------- the store's own commands (rule R2.6)

    /** What a raw read shows of the lock: its whole entry, the holder's identity included. */
    synchronized String rawRead(String name) {
        Entry entry = live(name, System.nanoTime());
        return entry == null ? null : entry.toString();
    }

    /** Sets the lock's expiry to {@code ttl} from now, whoever holds it. */
    synchronized void rawExtend(String name, Duration ttl) {
        Entry entry = live(name, System.nanoTime());
        if (entry != null) {
            locks.put(name, new Entry(entry.ownerId, entry.holder, entry.token, System.nanoTime() + ttl.toNanos()));
        }
    }

    /** Overwrites the lock with a holding of {@code intruder}'s. */
    synchronized void rawTakeOver(String name, HolderIdentity intruder) {
        locks.put(name, new Entry("raw-" + intruder.clientId(), intruder, ++lastToken, expiry(Duration.ofDays(1))));
    }

    /** The test hook: the lock is gone, as if its TTL ran out. */
    void expire(String name) {
        boolean removed;
        synchronized (this) {
            removed = locks.remove(name) != null;
        }
        if (removed) {
            notifyListeners(name);
        }
    }

    AutoCloseable subscribe(String name, Runnable onChange) {
        listeners.computeIfAbsent(name, k -> new CopyOnWriteArrayList<>()).add(onChange);
        watchExpiry(name);
        return () -> listeners.computeIfPresent(name, (k, list) -> {
            list.remove(onChange);
            return list.isEmpty() ? null : list;
        });
    }

    private static final java.util.concurrent.ScheduledExecutorService EXPIRY =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "toy-expiry");
                thread.setDaemon(true);
                return thread;
            });

    /** While somebody listens, tells them when the current lock of {@code name} expires (R7.8). */
    private void watchExpiry(String name) {
        long now = System.nanoTime();
        Entry entry;
        synchronized (this) {
            entry = live(name, now);
        }
        if (entry == null || !hasTtl() || !listeners.containsKey(name)) {
            return;
        }
        EXPIRY.schedule(() -> {
            Entry still;
            synchronized (this) {
                still = live(name, System.nanoTime());
            }
            if (still == null) {
                notifyListeners(name);
            } else {
                watchExpiry(name);
            }
        }, Math.max(0, entry.expiresAt - now) + 1, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    private void notifyListeners(String name) {
        if (has(Flaw.SILENT_NOTIFICATION)) {
            return;
        }
        List<Runnable> toCall = listeners.get(name);
        if (toCall != null) {
            toCall.forEach(Runnable::run);
        }
    }
}
