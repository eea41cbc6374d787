package io.locksmith.internal;

import io.locksmith.spi.LockProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.locks.LockSupport;

/**
 * The waiters of one client, per lock name, and the store subscription they share: one subscription per
 * name while anybody in this client waits for it, none otherwise. No thread per waiter: a waiter parks
 * its own thread and is unparked by the notification.
 *
 * <p>A notification wakes the longest-waiting local waiter only, so a release does not send every local
 * waiter to the store at once; a waiter that leaves without using its wake-up passes it on. For fair
 * (queueing) stores the store decides the order, so every local waiter is woken to check its place.
 */
final class WaitQueues {

    private static final Logger LOG = LoggerFactory.getLogger(WaitQueues.class);

    private final LockProvider provider;
    private final boolean notifying;
    private final boolean wakeAll;
    private final Map<String, NameQueue> queues = new ConcurrentHashMap<>();

    WaitQueues(LockProvider provider, boolean notifying, boolean wakeAll) {
        this.provider = provider;
        this.notifying = notifying;
        this.wakeAll = wakeAll;
    }

    boolean isNotifying() {
        return notifying;
    }

    /** One waiting thread. */
    static final class Waiter {
        private final Thread thread = Thread.currentThread();
        private volatile boolean signalled;

        void signal() {
            signalled = true;
            LockSupport.unpark(thread);
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

    private final class NameQueue {
        final String name;
        final ConcurrentLinkedDeque<Waiter> waiters = new ConcurrentLinkedDeque<>();
        AutoCloseable subscription;
        boolean closed;

        NameQueue(String name) {
            this.name = name;
        }

        void wake() {
            if (wakeAll) {
                waiters.forEach(Waiter::signal);
            } else {
                Waiter head = waiters.peekFirst();
                if (head != null) {
                    head.signal();
                }
            }
        }
    }

    /**
     * Registers the calling thread as a waiter on {@code name}, subscribing to the store's release
     * notification if this is the first local waiter. Subscribing before the first attempt means a release
     * between a failed attempt and the wait is never missed.
     */
    Waiter enter(String name) {
        Waiter waiter = new Waiter();
        while (true) {
            NameQueue queue = queues.computeIfAbsent(name, NameQueue::new);
            synchronized (queue) {
                if (queue.closed) {
                    continue;
                }
                queue.waiters.addLast(waiter);
                if (notifying && queue.subscription == null) {
                    try {
                        queue.subscription = provider.subscribe(name, queue::wake);
                    } catch (RuntimeException e) {
                        // Waiting still works by polling; the notification only saves latency.
                        LOG.warn("cannot subscribe to releases of lock '{}' on {}; waiting by polling", name,
                                provider.describe(), e);
                    }
                }
                return waiter;
            }
        }
    }

    /** Unregisters a waiter; the last one out closes the subscription. */
    void leave(String name, Waiter waiter, boolean acquired) {
        NameQueue queue = queues.get(name);
        if (queue == null) {
            return;
        }
        AutoCloseable toClose = null;
        synchronized (queue) {
            queue.waiters.remove(waiter);
            if (!acquired && waiter.signalled) {
                queue.wake();
            }
            if (queue.waiters.isEmpty()) {
                queue.closed = true;
                queues.remove(name, queue);
                toClose = queue.subscription;
                queue.subscription = null;
            }
        }
        if (toClose != null) {
            try {
                toClose.close();
            } catch (Exception e) {
                LOG.debug("closing the release subscription of lock '{}' failed", name, e);
            }
        }
    }

    /** A lease of this client on {@code name} was released: wake a local waiter without waiting for the store. */
    void released(String name) {
        NameQueue queue = queues.get(name);
        if (queue != null) {
            queue.wake();
        }
    }

    /** The client is closing: wake every waiter, so that it sees the closed client now rather than after its poll. */
    void wakeEveryone() {
        for (NameQueue queue : queues.values()) {
            queue.waiters.forEach(Waiter::signal);
        }
    }

    int waitingNames() {
        return queues.size();
    }
}
