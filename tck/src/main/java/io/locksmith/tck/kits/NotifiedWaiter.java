package io.locksmith.tck.kits;

import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Owner;

import java.time.Duration;
import java.util.concurrent.Semaphore;

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
    private Grant grant;

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
