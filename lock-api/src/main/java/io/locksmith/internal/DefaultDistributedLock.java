package io.locksmith.internal;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockEvent;
import io.locksmith.LockException;
import io.locksmith.LockInfo;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockLostException;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.LockTimeoutException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Owner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.Lock;

/** A named lock of a {@link DefaultLockClient}: the acquire and wait loop. */
final class DefaultDistributedLock implements DistributedLock {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultDistributedLock.class);
    private static final long FOREVER = -1;

    private final DefaultLockClient client;
    private final String name;
    private final LockOptions options;
    private final Duration ttl;

    DefaultDistributedLock(DefaultLockClient client, String name, LockOptions options, Duration ttl) {
        this.client = client;
        this.name = name;
        this.options = options;
        this.ttl = ttl;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LockOptions options() {
        return options;
    }

    @Override
    public Lease acquire() {
        return attempt(FOREVER).orElseThrow(() -> new IllegalStateException("unbounded wait returned no lease"));
    }

    @Override
    public Lease acquire(Duration maxWait) {
        long waitNanos = waitNanos(maxWait);
        return attempt(waitNanos).orElseThrow(() -> new LockTimeoutException(name, maxWait));
    }

    @Override
    public Optional<Lease> tryAcquire() {
        return attempt(0);
    }

    @Override
    public Optional<Lease> tryAcquire(Duration maxWait) {
        return attempt(waitNanos(maxWait));
    }

    private long waitNanos(Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait cannot be null");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, was " + maxWait + " [lock '" + name + "']");
        }
        try {
            return maxWait.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * @param maxWaitNanos 0 for one attempt, {@link #FOREVER} for no bound, else the bound
     */
    private Optional<Lease> attempt(long maxWaitNanos) {
        client.ensureOpen();
        boolean willWait = maxWaitNanos != 0;
        if (willWait && Thread.interrupted()) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(name, new InterruptedException("interrupted before waiting"));
        }
        Optional<Lease> reentered = reenter();
        if (reentered.isPresent()) {
            return reentered;
        }
        LockProvider provider = client.provider();
        Owner owner = client.newOwner();
        long start = System.nanoTime();
        // Joined only once the lock proved taken, so an uncontended acquire costs one store request and no
        // subscription; the attempt right after joining catches a release made before the subscription existed.
        WaitQueues.Waiter waiter = null;
        boolean acquired = false;
        client.acquiring(owner);
        try {
            Backoff backoff = new Backoff(client.waitQueues.isNotifying(), client.maxPollNanos);
            while (true) {
                long sentAt = System.nanoTime();
                Optional<Grant> grant = tryOnce(provider, owner, willWait, start);
                long now = System.nanoTime();
                if (grant.isPresent()) {
                    HeldLock held = new HeldLock(checked(grant.get(), owner), options, ttl.toNanos(), sentAt, now);
                    if (now < held.deadline) {
                        acquired = true;
                        client.registerHeld(held);
                        client.events().emit(LockEvent.Type.ACQUIRED, name, held.grant.fencingToken(),
                                owner.holder(), now - start, null);
                        return Optional.of(new DefaultLease(client, held));
                    }
                    // Granted, but the answer came too late to trust (a slow store, a paused client).
                    LOG.warn("lock '{}' was granted after its validity had passed; releasing it and trying again", name);
                    provider.release(held.grant);
                }
                long elapsed = now - start;
                if (!willWait || (maxWaitNanos != FOREVER && elapsed >= maxWaitNanos)) {
                    client.events().emit(LockEvent.Type.ACQUIRE_TIMED_OUT, name, -1, owner.holder(), elapsed, null);
                    return Optional.empty();
                }
                if (waiter == null) {
                    waiter = client.waitQueues.enter(name);
                    continue;
                }
                long pause = backoff.next();
                if (maxWaitNanos != FOREVER) {
                    pause = Math.min(pause, maxWaitNanos - elapsed);
                }
                waiter.await(pause);
                client.ensureOpen();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.events().emit(LockEvent.Type.ACQUIRE_FAILED, name, -1, owner.holder(), System.nanoTime() - start, e);
            throw new LockInterruptedException(name, e);
        } finally {
            client.acquireEnded(owner);
            if (waiter != null) {
                client.waitQueues.leave(name, waiter, acquired);
            }
            if (willWait && !acquired) {
                // An interrupted waiter must still leave nothing behind: a store call made with the interrupt flag
                // set fails at once in most clients, so clear it for the clean-up and set it again afterwards.
                boolean interrupted = Thread.interrupted();
                try {
                    provider.cancel(name, owner);
                } catch (RuntimeException e) {
                    LOG.warn("could not drop the queue entry of lock '{}' after the wait ended; it ends with its"
                            + " session or TTL", name, e);
                } finally {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }
    }

    private Optional<Lease> reenter() {
        HeldLock held = client.reentrantHold(name);
        if (held == null) {
            return Optional.empty();
        }
        if (held.tryReenter()) {
            client.events().emit(LockEvent.Type.REENTERED, name, held.grant.fencingToken(),
                    held.grant.owner().holder(), 0, null);
            return Optional.of(new DefaultLease(client, held));
        }
        if (held.state() == HeldLock.State.LOST && held.holdCount() > 0) {
            // The outer lease of this thread is lost and still open: this acquire would have re-entered it, and a
            // fresh lock granted inside it would hide the loss from the code around it. Say what to do instead.
            LeaseLostEvent lost = held.lostEvent();
            throw new LockLostException(lost, "this thread still has an open lease on lock '" + name + "' that was lost ("
                    + lost.reason() + ": " + lost.detail() + "; fencing token " + lost.fencingToken() + "): close the"
                    + " lost lease first, then acquire again");
        }
        return Optional.empty();
    }

    private Optional<Grant> tryOnce(LockProvider provider, Owner owner, boolean willWait, long start) {
        try {
            return provider.tryAcquire(new AcquireRequest(name, owner, ttl, willWait));
        } catch (RuntimeException e) {
            // A store call cut short by an interrupt is an interrupted wait, not a store failure. Clear the flag
            // while cleaning up, or the clean-up's own store call would be cut short too.
            boolean interrupted = Thread.interrupted() || causedByInterrupt(e);
            LockException failure = e instanceof LockException le ? le
                    : new LockStoreException(name, provider.describe() + " failed to acquire", e);
            // The request may have reached the store: make sure no lock stays behind that nobody thinks it holds.
            try {
                provider.releaseAmbiguous(name, owner);
            } catch (RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
                LockInterruptedException stopped = new LockInterruptedException(name,
                        new InterruptedException("interrupted during a store call"));
                stopped.addSuppressed(failure);
                failure = stopped;
            }
            client.events().emit(LockEvent.Type.ACQUIRE_FAILED, name, -1, owner.holder(), System.nanoTime() - start,
                    failure);
            throw failure;
        }
    }

    private static boolean causedByInterrupt(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            // SocketTimeoutException is an InterruptedIOException too, but it is a store time-out (an acquire whose
            // answer was lost), not an interrupt: taking it for one would set the caller's interrupt flag.
            if (cause instanceof InterruptedException || cause instanceof java.nio.channels.ClosedByInterruptException
                    || (cause instanceof java.io.InterruptedIOException
                            && !(cause instanceof java.net.SocketTimeoutException))) {
                return true;
            }
        }
        return false;
    }

    private Grant checked(Grant grant, Owner owner) {
        if (!grant.name().equals(name) || !grant.owner().id().equals(owner.id())) {
            throw new IllegalStateException(client.provider().describe() + " granted " + grant.name() + " to "
                    + grant.owner().id() + " when asked for " + name + " by " + owner.id());
        }
        return grant;
    }

    @Override
    public boolean isHeldByCurrentThread() {
        HeldLock held = client.reentrantHold(name);
        return held != null && held.isHeld(System.nanoTime());
    }

    @Override
    public Optional<LockInfo> inspect() {
        client.ensureOpen();
        return client.provider().inspect(name);
    }

    @Override
    public Lock asJavaLock() {
        return new JavaLockAdapter(this);
    }

    @Override
    public String toString() {
        return "DistributedLock[" + name + " on " + client.describe() + "]";
    }
}
