package io.locksmith.tck.kits;

import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Owner;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A waiter at the SPI, as the shared client waits but without its poll: subscribes, tries once, and tries again
 * each time the subscription calls back (a queueing or polling-free store learns of the waiter from its failed
 * attempts, as from the client's). A missing notice then fails every time, where a polling waiter can land near
 * the event by luck.
 */
final class NotifiedWaiter implements AutoCloseable {
    static final long NEVER = Long.MIN_VALUE;
    private final KitContext kit;
    private final LockProvider provider;
    private final String name;
    private final Semaphore calledBack = new Semaphore(0);
    private final AutoCloseable subscription;
    private final Owner owner;
    private final CountDownLatch watching = new CountDownLatch(1);
    private volatile Grant grant;
    private volatile int callBacks;
    private volatile int takenOnCallBacks;

    NotifiedWaiter(KitContext kit, LockProvider provider, String name) {
        this.kit = kit;
        this.provider = provider;
        this.name = name;
        this.owner = KitContext.tckOwner("tck-notified-waiter");
        this.subscription = provider.subscribe(name, calledBack::release);
        grant = kit.waitingAttempt(provider, name, owner);
    }

    /** Whether its first attempt, as it came, got the lock. */
    boolean gotItAtOnce() {
        return grant != null;
    }

    /** When the waiter got the lock, trying only on call-backs, or {@link #NEVER} within {@code bound}. */
    long awaitGrant(Duration bound) {
        if (grant == null) {
            grant = kit.grantOnCallBacks(provider, calledBack, name, owner, bound);
        }
        return grant == null ? NEVER : System.nanoTime();
    }

    /**
     * As {@link #awaitGrant(Duration)}, but the waiter watches for its callback on this running thread for up to
     * {@code spinFor} before it parks, so that its attempt follows a callback within microseconds: a provider that
     * calls back before the lock is free in the store has its waiter find the lock still taken. Counts the callbacks
     * and the attempts on them that found the lock taken.
     */
    long awaitGrantAtOnce(Duration bound, Duration spinFor) {
        watching.countDown();
        if (grant == null) {
            grant = kit.grantOnCallBacks(provider, calledBack, name, owner, bound, spinFor, attempt -> {
                callBacks++;
                if (attempt == null) {
                    takenOnCallBacks++;
                }
            });
        }
        return grant == null ? NEVER : System.nanoTime();
    }

    /** Waits until a thread runs {@link #awaitGrantAtOnce}, watching for its callback; whether it does within the bound. */
    boolean awaitWatching(Duration bound) {
        try {
            return watching.await(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** How many callbacks {@link #awaitGrantAtOnce} tried on, and how many of those attempts found the lock taken. */
    String callBacksSeen() {
        return callBacks + " callback(s), " + takenOnCallBacks + " of whose attempts found the lock taken";
    }

    int takenOnCallBacks() {
        return takenOnCallBacks;
    }

    /** Releases the lock the waiter got, keeping its subscription: it goes on being called, and must not stand in for the others. */
    void release() {
        Grant held = grant;
        if (held != null) {
            grant = null;
            provider.release(held);
        }
    }

    @Override
    public void close() {
        KitContext.closeQuietly(subscription);
        if (grant != null) {
            provider.release(grant);
        } else {
            provider.cancel(name, owner);
        }
    }
}
