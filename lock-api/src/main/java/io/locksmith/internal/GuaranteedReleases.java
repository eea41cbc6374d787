package io.locksmith.internal;

import io.locksmith.LockException;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The TTL of a store that does not apply one ({@link LockProvider#appliesTtl()} false: ZooKeeper's ephemeral nodes,
 * etcd keys under a lease the client shares and keeps alive): the one lease timer of such a store's locks once their
 * lease has run out, kept here so that no provider keeps a second one.
 *
 * <p>A lock whose lease ran out (a fixed lease, a renewing one past its maximum hold, renewals that failed until the
 * deadline) is released in the store, owner-checked, at the TTL its grant asked for, counted from before the request
 * that confirmed it last: that is when a store with a TTL would free it. Not at the client's deadline, which is
 * shorter by the drift allowance and, for a grant of shorter validity, by more: releasing there freed locks up to a
 * tenth of their TTL early (SPEC R3.3). The holder has been told by then: a release is only arranged after the loss
 * was signalled ({@link DefaultLockClient#lose}).
 *
 * <p>A release that fails (the store unreachable, no answer within the command time-out, an ambiguous answer) is sent
 * again, with a growing pause, until the store answers it (true or false: either way the owner's lock is gone), the
 * provider reports the lock lost ({@link #storeLetGo}: the store then frees it on its own, or the provider deletes
 * it), or the client is closed (closing the provider ends its session, and the session's locks with it). Without the
 * retry a holder whose renewals failed because the store was unreachable would leave its lock taken for as long as
 * the session then lives: an ephemeral node has no TTL of its own.
 *
 * <p>The same retries carry the client's other clean-ups on such a store ({@link #cleanUpUntilAnswered}): the cancel
 * of a finished wait's queue place and the release of an ambiguous or late grant, whose first try failed or outlived
 * its grace. A queue place left behind would stay ahead of every later waiter for the whole session.
 */
final class GuaranteedReleases implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GuaranteedReleases.class);
    private static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The longest pause between two attempts: a store back from an outage frees the lock within about this. */
    private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LockProvider provider;
    private final StoreCalls storeCalls;
    /** The client's timer thread: it only hands each attempt to a store-call thread. */
    private final ClientTimer timer;
    /** The bound of one attempt: the store's command time-out. */
    private final long attemptBoundNanos;
    /** Told the lock name after the store answered a release, so that local waiters try again at once. */
    private final Consumer<String> released;
    /** Releases not yet answered by the store, by owner id (unique per acquire). */
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * One lock to release, or one clean-up call to make ({@link #cleanUpUntilAnswered}); {@code generation} changes
     * when it is rescheduled, so that an older timer does nothing.
     */
    private static final class Pending {
        /** The key in {@link #pending}: the owner id for a release, the clean-up and the owner id for a clean-up. */
        final String key;
        final String name;
        /** The holding to release, or null for a clean-up. */
        final Grant grant;
        /** The clean-up's provider call, or null for a release. */
        final Runnable cleanUp;
        final String what;
        long generation;
        /** When the current generation's attempt is due ({@link System#nanoTime()}). */
        long scheduledAt;
        long nextPauseNanos = FIRST_RETRY_NANOS;
        int failures;

        Pending(Grant grant) {
            this.key = grant.owner().id();
            this.name = grant.name();
            this.grant = grant;
            this.cleanUp = null;
            this.what = "release at the end of the lease";
        }

        Pending(String key, String name, String what, Runnable cleanUp) {
            this.key = key;
            this.name = name;
            this.grant = null;
            this.cleanUp = cleanUp;
            this.what = what;
        }

        /** The token for messages: the holding's, or -1 for a clean-up. */
        long token() {
            return grant == null ? -1 : grant.fencingToken();
        }
    }

    GuaranteedReleases(LockProvider provider, StoreCalls storeCalls, ClientTimer timer, long attemptBoundNanos,
                       Consumer<String> released) {
        this.provider = provider;
        this.storeCalls = storeCalls;
        this.timer = timer;
        this.attemptBoundNanos = attemptBoundNanos;
        this.released = released;
    }

    /**
     * Releases {@code grant} at {@code atNanos} ({@link System#nanoTime()}), or at once if that has passed; a release
     * of it already arranged keeps the earlier time.
     */
    void releaseAt(Grant grant, long atNanos) {
        if (closed) {
            return;
        }
        Pending entry = pending.computeIfAbsent(grant.owner().id(), id -> new Pending(grant));
        if (entry.grant == null || entry.grant.fencingToken() != grant.fencingToken()) {
            return; // owner ids are never reused: cannot happen, but never release another holding
        }
        schedule(entry, atNanos - System.nanoTime(), true);
    }

    /** Releases {@code grant} now (its holder closed it), with the same retries; replaces a later release of it. */
    void releaseNow(Grant grant) {
        releaseAt(grant, System.nanoTime());
    }

    /**
     * Makes the clean-up call {@code providerCall} (a cancelled wait's queue place, an ambiguous grant: owner-checked,
     * so repeating it is harmless) after a first pause, and again with a growing pause until the store answers it
     * (the call returns) or the client is closed. For a store that applies no TTL, which keeps a queue place or a grant
     * as long as the client's session lives: a clean-up lost in an outage would block the name until the client closes.
     */
    void cleanUpUntilAnswered(String name, io.locksmith.spi.Owner owner, String what, Runnable providerCall) {
        if (closed) {
            return;
        }
        Pending entry = new Pending(what + "/" + owner.id(), name, what, providerCall);
        if (pending.putIfAbsent(entry.key, entry) == null) {
            schedule(entry, FIRST_RETRY_NANOS, false);
        }
    }

    /** Whether a release of this holding is arranged and not yet answered. */
    boolean isPending(Grant grant) {
        Pending entry = pending.get(grant.owner().id());
        return entry != null && entry.grant != null && entry.grant.fencingToken() == grant.fencingToken();
    }

    /**
     * The provider reported {@code grant} lost: the store lets it go on its own (its session ended, its lease
     * expired) or the provider deletes it, so the client stops trying. A negative token stands for any holding of
     * the owner, as in {@link io.locksmith.spi.LossListener}.
     */
    void storeLetGo(Grant grant) {
        Pending entry = pending.get(grant.owner().id());
        if (entry != null && entry.grant != null
                && (grant.fencingToken() < 0 || entry.grant.fencingToken() == grant.fencingToken())) {
            pending.remove(grant.owner().id(), entry);
        }
    }

    /** How many releases are still to be answered: a test hook. */
    int pendingCount() {
        return pending.size();
    }

    /**
     * @param onlyIfEarlier keep a scheduled attempt that comes sooner (a second request for the same release)
     */
    private void schedule(Pending entry, long delayNanos, boolean onlyIfEarlier) {
        long generation;
        synchronized (entry) {
            long at = System.nanoTime() + Math.max(0, delayNanos);
            if (onlyIfEarlier && entry.generation != 0 && entry.scheduledAt - at <= 0) {
                return;
            }
            entry.generation++;
            entry.scheduledAt = at;
            generation = entry.generation;
        }
        // The timer thread only hands the attempt to a store-call thread: it never waits on the store, so one slow
        // release does not delay another lock's (nor the renewal thread, which may be waiting on the store).
        // A task, not a provider call: the attempt's own store call takes its turn among the calls in flight.
        Runnable attempt = () -> storeCalls.runAsync(entry.name, () -> attempt(entry, generation));
        if (delayNanos > 0) {
            // null: the timer is closed, and so is the client (its close ends the session and the session's locks).
            timer.schedule(attempt, delayNanos);
        } else {
            attempt.run();
        }
    }

    private void attempt(Pending entry, long generation) {
        synchronized (entry) {
            if (closed || entry.generation != generation || pending.get(entry.key) != entry) {
                return;
            }
        }
        Grant grant = entry.grant;
        Runnable cleanUp = entry.cleanUp;
        try {
            boolean removed = storeCalls.call(entry.name, entry.what, grant != null ? () -> provider.release(grant)
                    : () -> {
                        cleanUp.run();
                        return true;
                    }, attemptBoundNanos, late -> answered(entry, late));
            answered(entry, removed);
        } catch (LockException e) {
            retryLater(entry, generation, e);
        } catch (InterruptedException e) {
            // Only closing interrupts a store-call thread: the session ends with the provider.
            Thread.currentThread().interrupt();
            retryLater(entry, generation, e);
        } catch (RuntimeException e) {
            // Not a store failure but a provider that cannot release this grant: trying again would fail the same way.
            pending.remove(entry.key, entry);
            LOG.warn("{} failed the {} of lock '{}' (token {}); it stays until the store's session ends",
                    provider.describe(), entry.what, entry.name, entry.token(), e);
        }
    }

    private void answered(Pending entry, boolean removed) {
        if (pending.remove(entry.key, entry)) {
            LOG.debug("{} of lock '{}' (token {}) answered by {}{}", entry.what, entry.name, entry.token(),
                    provider.describe(), removed ? "" : " (it was gone already)");
            released.accept(entry.name);
        }
    }

    private void retryLater(Pending entry, long generation, Exception failure) {
        long pause;
        synchronized (entry) {
            if (closed || entry.generation != generation || pending.get(entry.key) != entry) {
                return;
            }
            entry.failures++;
            long step = entry.nextPauseNanos;
            entry.nextPauseNanos = Math.min(MAX_RETRY_NANOS, step * 2);
            // Between half and all of the step: clients cut off together do not come back together.
            pause = step / 2 + ThreadLocalRandom.current().nextLong(Math.max(1, step / 2));
        }
        if (entry.failures == 1 || entry.failures % 30 == 0) {
            LOG.warn("the {} of lock '{}' (token {}) in {} failed {} time(s); retrying until the store answers or ends"
                    + " the session: {}", entry.what, entry.name, entry.token(), provider.describe(), entry.failures,
                    failure.toString());
        }
        schedule(entry, pause, false);
    }

    /** Stops every retry: the provider is closed next, which ends the session and the locks of it. */
    @Override
    public void close() {
        closed = true;
        pending.clear();
    }
}
