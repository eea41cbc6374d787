package io.locksmith.internal;

import io.locksmith.spi.LockProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The waiters of one client, per lock name, and the store subscription they share: one subscription per
 * name while anybody in this client waits for it, and for {@link #LINGER_NANOS} after the last one left, so
 * that the next wait on a busy name finds it open; none otherwise.
 *
 * <p>Local waiters coalesce: they queue here in arrival order, and only the first of them, the <em>active</em>
 * waiter, makes store attempts; the others make no store request at all until their turn comes (or their wait
 * ends). However many threads or asynchronous acquires of this client wait for one name, the store sees one
 * waiter and one request at a time from it: a queueing store keeps one place for this client, and a polling one
 * one poll. A release notification, and a release by a lease of this client, wake the active waiter only; when it
 * leaves (with the lock, or at the end of its wait), the next one becomes active and makes its first attempt at
 * once. Fairness between clients is the store's: on a queueing store this client's active waiter takes its place
 * behind every waiter of another client that queued before it, so a client gets the lock at most once while
 * another client's waiter is queued ahead of its active waiter.
 *
 * <p>No thread per waiter: a blocking waiter parks its own thread and is unparked by a signal; an asynchronous
 * waiter is a callback.
 *
 * <p>Reusing a subscription for a later waiter is within {@link LockProvider#subscribe}'s contract: a
 * subscription is of a name, not of a waiter (it is called on every change of the name until closed, R7.4,
 * R7.8, R7.10), and a queueing store keys a waiter's place by its owner and takes it in the waiter's own
 * attempt (etcd's keys ahead, ZooKeeper's predecessor watch), which every wait makes after it became active.
 */
final class WaitQueues implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WaitQueues.class);

    /**
     * How long a name's subscription stays open after its last local waiter left. Opening one costs the
     * store requests before the waiter has its place: on etcd a new watch stream, the wait until etcd has
     * created it, then the read of the keys ahead; on Redis a {@code SUBSCRIBE} and its confirmation. With one
     * waiter per client on a busy name, as in a job loop of acquire, work, release, every wait paid that again
     * (docs/PERFORMANCE.md, goal 4). A second covers the gap between one thread's waits on a busy name (work
     * plus think time, tens of milliseconds in the bench) and keeps an idle name's subscription only briefly:
     * while open it holds a watch (etcd), a channel and a TTL poll of the name (Redis), a callback (ZooKeeper).
     */
    static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * A subscription older than this is closed when its last waiter leaves rather than kept for the next:
     * {@code subscribe} has no way to tell that the store ended a subscription on its own (etcd ends a watch
     * after an unrecoverable stream error; its waiters then wait by polling until the subscription is closed),
     * so reuse must not keep such a subscription alive for as long as a busy name is waited for. Opening a fresh
     * one every so often costs a few requests per client and name.
     */
    static final long MAX_REUSE_AGE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final LockProvider provider;
    private final boolean notifying;
    private final ClientTimer timer;
    /** Closes a subscription whose linger passed, off the scheduler thread: a close may write to the store. */
    private final Executor closer;
    private final LongSupplier clock;
    private final Map<String, NameQueue> queues = new ConcurrentHashMap<>();
    /** Subscriptions whose linger passed, until {@link #closer} has closed them; {@link #close()} closes the rest. */
    private final Set<HandedOff> handedOff = ConcurrentHashMap.newKeySet();
    /** Set once by {@link #close()}: subscriptions are closed when their last waiter leaves, none is opened. */
    private volatile boolean closed;

    /**
     * @param timer  the client's scheduler: runs the end of a linger
     * @param closer runs the close of a subscription whose linger passed, off the scheduler's thread
     */
    WaitQueues(LockProvider provider, boolean notifying, ClientTimer timer, Executor closer) {
        this(provider, notifying, timer, closer, System::nanoTime);
    }

    /** With the clock that dates subscriptions ({@link System#nanoTime()} but in tests). */
    WaitQueues(LockProvider provider, boolean notifying, ClientTimer timer, Executor closer, LongSupplier clock) {
        this.clock = clock;
        this.provider = provider;
        this.notifying = notifying;
        this.timer = timer;
        this.closer = closer;
    }

    boolean isNotifying() {
        return notifying;
    }

    /**
     * One waiter: a blocking acquire's thread, or an asynchronous acquire's callback. A signal says "look again":
     * the waiter became active, the lock may have become free, or the client is closing.
     */
    static final class Waiter {
        private final Thread thread;
        private final Runnable onSignal;
        private volatile NameQueue queue;
        private volatile boolean signalled;

        /** A waiter for the calling thread, which parks in {@link #await}. */
        Waiter() {
            this.thread = Thread.currentThread();
            this.onSignal = null;
        }

        /** A waiter that parks no thread: a signal runs {@code onSignal}, which must not block. */
        Waiter(Runnable onSignal) {
            this.thread = null;
            this.onSignal = onSignal;
        }

        void signal() {
            signalled = true;
            if (thread != null) {
                LockSupport.unpark(thread);
            } else {
                onSignal.run();
            }
        }

        /** Takes a pending signal: true if there was one. */
        boolean takeSignal() {
            if (!signalled) {
                return false;
            }
            signalled = false;
            return true;
        }

        /**
         * Whether this waiter may make store attempts: it is the first local waiter of its name. A waiter whose
         * queue was closed with the client counts as active, so that it looks at the client and ends.
         */
        boolean isActive() {
            NameQueue current = queue;
            return current == null || current.closed || current.waiters.peekFirst() == this;
        }

        /**
         * Parks until signalled or {@code nanos} pass.
         *
         * @throws InterruptedException if the thread is interrupted (the flag is cleared, as the JDK does)
         */
        void await(long nanos) throws InterruptedException {
            if (!signalled && nanos > 0) {
                LockSupport.parkNanos(this, nanos);
            }
            signalled = false;
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    /** The waiters of one name and their subscription. Fields other than {@link #waiters} are guarded by it. */
    private final class NameQueue {
        final String name;
        final ConcurrentLinkedDeque<Waiter> waiters = new ConcurrentLinkedDeque<>();
        AutoCloseable subscription;
        long subscribedAt;
        /** The end of the linger under way, while nobody waits and the subscription is kept; else null. */
        Future<?> lingerEnd;
        /** Tells a linger's end task whether it is still the current one (a cancel can come too late). */
        long lingerTicket;
        /** Out of {@link #queues}: an entering waiter makes a new queue. */
        boolean closed;

        NameQueue(String name) {
            this.name = name;
        }

        /** Wakes the active waiter: the only one that makes store attempts. */
        void wake() {
            Waiter head = waiters.peekFirst();
            if (head != null) {
                head.signal();
            }
        }

        /** Takes the queue out of use; returns the subscription for the caller to close outside the lock. */
        AutoCloseable retire() {
            closed = true;
            queues.remove(name, this);
            cancelLinger();
            AutoCloseable toClose = subscription;
            subscription = null;
            return toClose;
        }

        void cancelLinger() {
            lingerTicket++;
            if (lingerEnd != null) {
                lingerEnd.cancel(false);
                lingerEnd = null;
            }
        }
    }

    /**
     * Registers {@code waiter} on {@code name}, last in arrival order. It is active at once if nobody else of this
     * client waits for the name. No store request: a waiter subscribes ({@link #subscribe}) only once the lock proved
     * taken, so an acquire of a free lock costs one store request and no subscription.
     */
    Waiter enter(String name, Waiter waiter) {
        while (true) {
            NameQueue queue = queues.computeIfAbsent(name, NameQueue::new);
            synchronized (queue) {
                if (queue.closed) {
                    continue;
                }
                waiter.queue = queue;
                queue.waiters.addLast(waiter);
                queue.cancelLinger();
                if (closed) {
                    // The client is closing: no wait; the waiter sees the closed client.
                    waiter.signal();
                }
                return waiter;
            }
        }
    }

    /**
     * Subscribes {@code waiter}'s name to the store's release notification if no subscription of the name is open or
     * lingering. Called by the active waiter once the lock proved taken, before its next attempt: a release between
     * that attempt and the wait is then never missed.
     */
    void subscribe(Waiter waiter) {
        NameQueue queue = waiter.queue;
        if (queue == null || !notifying) {
            return;
        }
        synchronized (queue) {
            if (closed || queue.closed || queue.subscription != null) {
                return;
            }
            try {
                queue.subscription = provider.subscribe(queue.name, queue::wake);
                queue.subscribedAt = clock.getAsLong();
            } catch (RuntimeException e) {
                // Waiting still works by polling; the notification only saves latency.
                LOG.warn("cannot subscribe to releases of lock '{}' on {}; waiting by polling", queue.name,
                        provider.describe(), e);
            }
        }
    }

    /**
     * Unregisters a waiter; if it was the active one, the next becomes active. When the last one leaves, the subscription lingers for the next waiter, unless the
     * client is closing, the subscription is older than {@link #MAX_REUSE_AGE_NANOS} or there is none: then
     * it is closed now.
     */
    void leave(String name, Waiter waiter) {
        NameQueue queue = waiter.queue;
        if (queue == null) {
            return;
        }
        AutoCloseable toClose = null;
        synchronized (queue) {
            boolean wasActive = queue.waiters.peekFirst() == waiter;
            queue.waiters.remove(waiter);
            if (wasActive) {
                // The next waiter's turn: it makes its first store attempt at once.
                queue.wake();
            }
            if (queue.waiters.isEmpty() && !queue.closed) {
                if (closed || queue.subscription == null
                        || clock.getAsLong() - queue.subscribedAt >= MAX_REUSE_AGE_NANOS || !linger(queue)) {
                    toClose = queue.retire();
                }
            }
        }
        closeQuietly(name, toClose);
    }

    /** Starts the linger of {@code queue}'s subscription; false if the client's scheduler is closed. */
    private boolean linger(NameQueue queue) {
        long ticket = ++queue.lingerTicket;
        queue.lingerEnd = timer.schedule(() -> lingerPassed(queue, ticket), LINGER_NANOS);
        return queue.lingerEnd != null;
    }

    /** On the scheduler's thread: nobody came back within the linger; the close goes to {@link #closer}. */
    private void lingerPassed(NameQueue queue, long ticket) {
        HandedOff closing;
        synchronized (queue) {
            if (queue.closed || ticket != queue.lingerTicket || !queue.waiters.isEmpty()) {
                return;
            }
            queue.lingerEnd = null;
            AutoCloseable toClose = queue.retire();
            if (toClose == null) {
                return;
            }
            closing = new HandedOff(queue.name, toClose);
            // Under the queue's lock: close() either retires this queue itself or finds the handle here.
            handedOff.add(closing);
        }
        try {
            closer.execute(() -> closeHandedOff(closing));
        } catch (RejectedExecutionException e) {
            closeHandedOff(closing); // the client is closing: no other thread left to do it
        }
    }

    /** A subscription handed to {@link #closer}; identity, not the handle's equals, tells them apart. */
    private static final class HandedOff {
        final String name;
        final AutoCloseable subscription;
        /** Guarded by this object's monitor, held during the close: whoever comes second waits for it. */
        boolean done;

        HandedOff(String name, AutoCloseable subscription) {
            this.name = name;
            this.subscription = subscription;
        }
    }

    /**
     * Closes a handed-off subscription unless that is done already, or waits until it is: each is closed once,
     * and {@link #close()} does not return while the closer is still closing one.
     */
    private void closeHandedOff(HandedOff closing) {
        synchronized (closing) {
            if (!closing.done) {
                closing.done = true;
                closeQuietly(closing.name, closing.subscription);
            }
        }
        handedOff.remove(closing);
    }

    private static void closeQuietly(String name, AutoCloseable subscription) {
        if (subscription == null) {
            return;
        }
        try {
            subscription.close();
        } catch (Exception e) {
            LOG.debug("closing the release subscription of lock '{}' failed", name, e);
        }
    }

    /** A lease of this client on {@code name} was released: wake a local waiter without waiting for the store. */
    void released(String name) {
        NameQueue queue = queues.get(name);
        if (queue != null) {
            queue.wake();
        }
    }

    /**
     * Wakes every waiter of every name, active or not, so that each looks at the client's state now rather than after
     * its poll: the store became unreachable, and waits end with its error at once (R9.14).
     */
    void wakeAll() {
        for (NameQueue queue : queues.values()) {
            queue.waiters.forEach(Waiter::signal);
        }
    }

    /**
     * The client is closing: wakes every waiter, so that it sees the closed client now rather than after its
     * poll, and closes every lingering subscription now, on the caller's thread. A name with waiters keeps its
     * subscription until its last waiter leaves, which closes it at once. No subscription is opened after this.
     */
    @Override
    public void close() {
        closed = true;
        for (NameQueue queue : queues.values()) {
            AutoCloseable toClose = null;
            synchronized (queue) {
                queue.waiters.forEach(Waiter::signal);
                if (queue.waiters.isEmpty() && !queue.closed) {
                    toClose = queue.retire();
                }
            }
            closeQuietly(queue.name, toClose);
        }
        handedOff.forEach(this::closeHandedOff);
    }
}
