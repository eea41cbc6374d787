package io.locksmith.tck.kits;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import io.locksmith.LockTimeoutException;
import io.locksmith.tck.LockHistory;
import io.locksmith.tck.TckTiming;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The workload of R1.5 ({@link HistoryKit}): random operations of several clients and threads on a few names,
 * each call and holding recorded in a {@link LockHistory}, with locks dropped behind their holders' backs where the
 * kit has the hook, and clients that close while holding and waiting.
 */
final class RandomizedHistory {

    /**
     * Acquire attempts on a held name the history makes (when the store is fast enough to make them within
     * {@link TckTiming#historyDuration()}): a store that grants a held lock once in 1,000 such attempts gets through
     * 7,000 of them with probability (1 - 1/1000)^7000, under 0.1% (docs/TCK.md).
     */
    static final long CONTENDED_ATTEMPTS = 7_000;
    /** Locks the history drops behind their holders' backs, at the most. */
    private static final int MAX_DROPS = 6;

    private final KitContext kit;
    private final TckTiming timing;
    private final List<String> names;
    private final boolean dropHook;
    private final LockHistory history = new LockHistory();
    /** The holding of each name that the history believes current. */
    private final Map<String, LockHistory.Holding> current = new ConcurrentHashMap<>();
    private final AtomicInteger drops = new AtomicInteger();
    /** A moving average of {@code tryAcquire()} in the history, to size the holds by the store's speed. */
    private final AtomicLong tryLatency = new AtomicLong();

    RandomizedHistory(KitContext kit, List<String> names) {
        this.kit = kit;
        this.timing = kit.timing();
        this.names = names;
        this.dropHook = kit.supportsExpiryHook();
    }

    LockHistory history() {
        return history;
    }

    /** Whether to go on: the time is not up and the history has not made its contended attempts. */
    boolean goesOn(long stopAt) {
        return System.nanoTime() - stopAt < 0 && history.contendedAttempts() < CONTENDED_ATTEMPTS
                && !Thread.currentThread().isInterrupted();
    }

    /**
     * One client's life in the history: it takes one name and lets it go, takes the other, starts a second thread
     * waiting for the first name, then closes while holding and waiting. Its holdings end when the close is invoked.
     */
    void clientClose(SplittableRandom random) throws Exception {
        LockClient closing = kit.client();
        String first = names.get(random.nextInt(names.size()));
        String second = names.get(0).equals(first) ? names.get(1) : names.get(0);
        List<LockHistory.Holding> own = new ArrayList<>();
        AtomicBoolean closed = new AtomicBoolean();
        String holder = closing.clientId() + "/closing";
        // Once on the first name, so that the close has a name it locked before and does not hold now.
        Optional<Lease> once = timedAcquire(closing, first, holder, own, closed);
        once.ifPresent(lease -> release(lease, first, own.get(own.size() - 1)));
        own.clear();
        timedAcquire(closing, second, holder, own, closed);
        Future<?> waiter = kit.submit(() -> {
            try {
                timedAcquire(closing, first, holder + "-waiter", own, closed);
            } catch (RuntimeException e) {
                // The client closed under the wait: the wait ends, with an error, within its bound (recorded).
            }
            return null;
        });
        long roundTrip = Math.max(TimeUnit.MICROSECONDS.toNanos(500), tryLatency.get());
        LockSupport.parkNanos(roundTrip * 2 + random.nextLong(roundTrip * 4));
        long closeAt;
        synchronized (own) {
            closed.set(true);
            closeAt = System.nanoTime();
            for (LockHistory.Holding holding : own) {
                holding.releasing();
                current.remove(holding.name(), holding);
            }
        }
        closing.close();
        history.completed("close of client " + closing.clientId() + " holding " + own.size() + " lock(s)", closeAt,
                timing.slack().toNanos(), false, false);
        waiter.get(timing.slack().multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
    }

    /** A timed acquire by a closing client, recorded; a holding granted after the close began ends at once. */
    private Optional<Lease> timedAcquire(LockClient client, String name, String holder, List<LockHistory.Holding> own,
                                         AtomicBoolean closed) {
        Duration wait = timing.shortLease();
        boolean contended = current.containsKey(name);
        long invokedAt = System.nanoTime();
        Optional<Lease> lease = Optional.empty();
        try {
            lease = client.lock(name, LockOptions.builder().leaseTime(timing.longLease()).fixedLease().build())
                    .tryAcquire(wait);
        } finally {
            history.completed("tryAcquire(" + wait.toMillis() + "ms) of '" + name + "' by closing client "
                    + client.clientId(), invokedAt, wait.plus(timing.slack()).toNanos(), true, contended);
        }
        lease.ifPresent(held -> {
            synchronized (own) {
                if (closed.get() && !held.isHeld()) {
                    // Handed out as the close began and lost to it (CLIENT_CLOSED) before anybody could use it.
                    return;
                }
                LockHistory.Holding holding = history.granted(name, holder, held.fencingToken(), "tryAcquire("
                        + wait.toMillis() + "ms)", invokedAt);
                held.onLost(event -> holding.lostReported(event.reason().name()));
                own.add(holding);
                if (closed.get()) {
                    holding.releasing();
                } else {
                    current.put(name, holding);
                }
            }
        });
        return lease;
    }

    private void release(Lease lease, String name, LockHistory.Holding holding) {
        current.remove(name, holding);
        long releaseAt = System.nanoTime();
        holding.releasing();
        lease.close();
        history.completed("release of '" + name + "' (token " + lease.fencingToken() + ")", releaseAt,
                timing.slack().toNanos(), false, false);
    }

    /** One random operation of the history: an acquire of some kind, a short hold, sometimes a fault, a release. */
    void step(LockClient client, SplittableRandom random) {
        String name = names.get(random.nextInt(names.size()));
        boolean mayDrop = dropHook && drops.get() < MAX_DROPS;
        int kind = random.nextInt(100);
        boolean renewing = random.nextBoolean();
        // The renewing lease is the slack, not the short lease: a holding here lasts a few round trips, and a
        // renewing 400 ms lease whose holder's JVM pauses (a collection, a starved core) past its end is granted to
        // another client before the paused holder can be told; no client can report that loss in time, and fencing
        // is the answer to it (R5). Renewal under load has its own rules (R6).
        LockOptions options = renewing
                ? LockOptions.builder().leaseTime(timing.slack()).maxHold(timing.longLease()).build()
                : LockOptions.builder().leaseTime(timing.longLease()).fixedLease().build();
        DistributedLock lock = client.lock(name, options);
        boolean contended = current.containsKey(name);
        long invokedAt = System.nanoTime();
        Optional<Lease> lease;
        String operation;
        long bound;
        if (kind < 75) {
            operation = "tryAcquire()";
            bound = timing.slack().toNanos();
            lease = lock.tryAcquire();
            long took = System.nanoTime() - invokedAt;
            tryLatency.updateAndGet(average -> average == 0 ? took : (average * 7 + took) / 8);
        } else if (kind < 92) {
            Duration wait = Duration.ofMillis(1 + random.nextInt(20));
            operation = "tryAcquire(" + wait.toMillis() + "ms)";
            bound = wait.plus(timing.slack()).toNanos();
            lease = lock.tryAcquire(wait);
        } else {
            Duration wait = timing.slack();
            operation = "acquire(" + wait.toMillis() + "ms)";
            bound = wait.plus(timing.slack()).toNanos();
            try {
                lease = Optional.of(lock.acquire(wait));
            } catch (LockTimeoutException e) {
                lease = Optional.empty();
            }
        }
        history.completed(operation + " of '" + name + "' by " + client.clientId(), invokedAt, bound, true, contended);
        if (lease.isEmpty()) {
            return;
        }
        Lease held = lease.get();
        LockHistory.Holding holding = history.granted(name, client.clientId() + "/" + Thread.currentThread().getName(),
                held.fencingToken(), operation, invokedAt);
        held.onLost(event -> holding.lostReported(event.reason().name()));
        current.put(name, holding);
        try {
            if (mayDrop && random.nextInt(60) == 0 && drops.incrementAndGet() <= MAX_DROPS) {
                // A fault: the store loses the lock behind the holder's back; the holder must be told.
                holding.droppedByKit();
                kit.expireBehindClientsBack(name);
                kit.awaitDropped(client, name, held.fencingToken());
            } else if (random.nextBoolean()) {
                // Held for a few store round trips, so that the other threads try it several times meanwhile: each
                // try on a held name is a chance of a double grant, on a fast store as on a slow one.
                long roundTrip = Math.max(TimeUnit.MICROSECONDS.toNanos(500), tryLatency.get());
                LockSupport.parkNanos(roundTrip + random.nextLong(roundTrip * 3));
            }
        } finally {
            current.remove(name, holding);
            long releaseAt = System.nanoTime();
            holding.releasing();
            held.close();
            history.completed("release of '" + name + "' (token " + held.fencingToken() + ")", releaseAt,
                    timing.slack().toNanos(), false, false);
        }
    }
}
