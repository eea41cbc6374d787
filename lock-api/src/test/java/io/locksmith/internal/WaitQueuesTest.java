package io.locksmith.internal;

import io.locksmith.Capability;
import io.locksmith.LockInfo;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A name's subscription lingers after its last waiter left, is reused by the next, and is closed when the linger
 * passes or the client closes, exactly once and never later than the close. The timer is driven by hand, so
 * nothing here depends on how fast the machine is.
 */
@Timeout(60)
class WaitQueuesTest {

    /** A notifying store that counts its subscriptions and remembers the callback of each open one. */
    private static final class CountingProvider implements LockProvider {
        final AtomicInteger opened = new AtomicInteger();
        final Map<Object, Runnable> open = new ConcurrentHashMap<>();
        final Map<Object, AtomicInteger> closes = new ConcurrentHashMap<>();

        @Override
        public AutoCloseable subscribe(String name, Runnable onChange) {
            opened.incrementAndGet();
            Object id = new Object();
            open.put(id, onChange);
            AtomicInteger closed = new AtomicInteger();
            closes.put(id, closed);
            return () -> {
                closed.incrementAndGet();
                open.remove(id);
            };
        }

        /** Calls back every open subscription, as a release in the store would. */
        void release() {
            open.values().forEach(Runnable::run);
        }

        int closedOnce() {
            int once = 0;
            for (AtomicInteger count : closes.values()) {
                assertTrue(count.get() <= 1, "a subscription was closed " + count.get() + " times");
                once += count.get();
            }
            return once;
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            return Optional.empty();
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            return false;
        }

        @Override
        public boolean release(Grant grant) {
            return false;
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            return Optional.empty();
        }

        @Override
        public Set<Capability> capabilities() {
            return Set.of(Capability.RELEASE_NOTIFICATION);
        }

        @Override
        public String describe() {
            return "counting://";
        }

        @Override
        public void close() {
        }
    }

    /** The client's scheduler, driven by the test: nothing runs until {@link #fire()}. */
    private static final class ManualTimer implements ClientTimer {
        final List<FutureTask<Void>> scheduled = new CopyOnWriteArrayList<>();
        /** Every task as given, to run one as if it had started before its cancel. */
        final List<Runnable> tasks = new CopyOnWriteArrayList<>();
        final List<Long> delays = new CopyOnWriteArrayList<>();
        boolean shutDown;

        @Override
        public Future<?> schedule(Runnable task, long delayNanos) {
            if (shutDown) {
                return null;
            }
            FutureTask<Void> future = new FutureTask<>(task, null);
            scheduled.add(future);
            tasks.add(task);
            delays.add(delayNanos);
            return future;
        }

        /** Runs every task due so far that was not cancelled (a cancelled FutureTask does not run). */
        void fire() {
            List<FutureTask<Void>> due = new ArrayList<>(scheduled);
            scheduled.removeAll(due);
            due.forEach(FutureTask::run);
        }

        long pending() {
            return scheduled.stream().filter(future -> !future.isDone()).count();
        }
    }

    private final CountingProvider store = new CountingProvider();
    private final ManualTimer timer = new ManualTimer();
    /** Closes handed to the closer thread, run when the test says. */
    private final List<Runnable> closerQueue = new CopyOnWriteArrayList<>();
    private final AtomicLong now = new AtomicLong();
    private final WaitQueues queues = new WaitQueues(store, true, timer, closerQueue::add, now::get);

    private void runCloser() {
        List<Runnable> due = new ArrayList<>(closerQueue);
        closerQueue.removeAll(due);
        due.forEach(Runnable::run);
    }

    /** A waiter that found the lock taken: in the queue, with the name's subscription open. */
    private static WaitQueues.Waiter join(WaitQueues queues, String name) {
        WaitQueues.Waiter waiter = queues.enter(name, new WaitQueues.Waiter());
        queues.subscribe(waiter);
        return waiter;
    }

    @Test
    void theNextWaiterWithinTheLingerReusesTheSubscriptionAndIsWokenThroughIt() throws Exception {
        WaitQueues.Waiter first = join(queues, "job");
        queues.leave("job", first);
        assertEquals(1, store.opened.get());
        assertEquals(0, store.closedOnce(), "the last waiter out must leave the subscription open for the next");
        assertEquals(List.of(WaitQueues.LINGER_NANOS), timer.delays, "one linger, of the stated length");

        WaitQueues.Waiter second = join(queues, "job");
        assertEquals(1, store.opened.get(), "a waiter within the linger must reuse the subscription");
        assertEquals(0, timer.pending(), "a returning waiter ends the linger");
        store.release();
        long start = System.nanoTime();
        second.await(TimeUnit.MINUTES.toNanos(5)); // returns at once only if the reused subscription woke it
        assertTrue(System.nanoTime() - start < TimeUnit.MINUTES.toNanos(1), "the reused subscription did not wake the waiter");

        queues.leave("job", second);
        timer.fire(); // the cancelled linger of the first leave must not close anything; this one does
        assertEquals(0, store.closedOnce(), "the close goes to the closer, off the timer's thread");
        runCloser();
        assertEquals(1, store.closedOnce(), "the subscription must be closed once its linger passed");

        queues.leave("job", join(queues, "job"));
        assertEquals(2, store.opened.get(), "after the linger, a waiter opens a new subscription");
        queues.close();
        assertEquals(2, store.closedOnce());
    }

    @Test
    void aLingerWhoseCancelCameTooLateDoesNotCloseTheSubscriptionOfTheNextLinger() {
        WaitQueues.Waiter first = join(queues, "job");
        queues.leave("job", first);
        Runnable firstLingerEnd = timer.tasks.get(0);
        WaitQueues.Waiter second = join(queues, "job");
        assertTrue(timer.scheduled.get(0).isCancelled(), "the returning waiter must cancel the pending linger");
        queues.leave("job", second);
        // The first linger's end was already running when the second waiter came, so its cancel came too late.
        firstLingerEnd.run();
        runCloser();
        assertEquals(0, store.closedOnce(), "the end of a stale linger must not close the subscription of the next");
        timer.fire();
        runCloser();
        assertEquals(1, store.closedOnce());
        assertEquals(1, store.opened.get());
    }

    @Test
    void closingTheClientClosesALingeringSubscriptionAtOnce() {
        queues.leave("a", join(queues, "a"));
        queues.leave("b", join(queues, "b"));
        assertEquals(0, store.closedOnce());
        queues.close();
        assertEquals(2, store.closedOnce(), "close must not leave a lingering subscription open");
        assertTrue(store.open.isEmpty());
        timer.fire();
        runCloser();
        assertEquals(2, store.closedOnce(), "a linger that ends after the close closes nothing again");
    }

    @Test
    void aSubscriptionHandedToTheCloserIsClosedByTheClientCloseIfTheCloserHasNotRunYet() {
        queues.leave("a", join(queues, "a"));
        timer.fire();
        assertEquals(1, closerQueue.size());
        queues.close();
        assertEquals(1, store.closedOnce(), "close must not return with a subscription still waiting for the closer");
        runCloser();
        assertEquals(1, store.closedOnce(), "and the closer must not close it a second time");
    }

    @Test
    void afterTheClientClosedTheLastWaiterOutClosesAtOnceAndNoSubscriptionIsOpened() throws Exception {
        WaitQueues.Waiter waiting = join(queues, "a");
        queues.close();
        long start = System.nanoTime();
        waiting.await(TimeUnit.MINUTES.toNanos(5)); // the close wakes it
        assertTrue(System.nanoTime() - start < TimeUnit.MINUTES.toNanos(1));
        assertEquals(0, store.closedOnce(), "a waiter is still using it");
        queues.leave("a", waiting);
        assertEquals(1, store.closedOnce(), "the last waiter out after the close must close it, not linger");
        assertEquals(0, timer.pending());

        WaitQueues.Waiter late = join(queues, "b");
        late.await(TimeUnit.MINUTES.toNanos(5)); // woken at once: the client is closed
        assertEquals(1, store.opened.get(), "no subscription is opened on a closed client");
        queues.leave("b", late);
    }

    @Test
    void aSubscriptionPastTheReuseAgeIsClosedByItsLastWaiterInsteadOfLingering() {
        queues.leave("job", join(queues, "job"));
        now.addAndGet(WaitQueues.MAX_REUSE_AGE_NANOS - 1);
        WaitQueues.Waiter reusing = join(queues, "job");
        assertEquals(1, store.opened.get(), "reused just before its age limit");
        now.addAndGet(1);
        queues.leave("job", reusing);
        assertEquals(1, store.closedOnce(), "a store may have ended an old subscription on its own: do not keep it");
        assertEquals(0, timer.pending());
        queues.leave("job", join(queues, "job"));
        assertEquals(2, store.opened.get(), "the next waiter opens a fresh one");
        queues.close();
    }

    @Test
    void withTheSchedulerClosedTheLastWaiterOutClosesAtOnce() {
        timer.shutDown = true;
        queues.leave("a", join(queues, "a"));
        assertEquals(1, store.closedOnce(), "without a timer to end it, a linger would never end");
    }

    @Test
    void manyWaitersComingAndGoingLeaveNoSubscriptionOpenAfterClose() throws Exception {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
        try {
            // Lingers end after a few microseconds instead of a second: every interleaving of enter, leave, the
            // linger's end and the closer gets a chance.
            ClientTimer quick = (task, delayNanos) -> scheduler.schedule(task,
                    ThreadLocalRandom.current().nextLong(50_000), TimeUnit.NANOSECONDS);
            WaitQueues racing = new WaitQueues(store, true, quick, scheduler::execute);
            int threads = 4;
            CountDownLatch done = new CountDownLatch(threads);
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread thread = new Thread(() -> {
                    try {
                        for (int i = 0; i < 3_000; i++) {
                            String name = "n" + ThreadLocalRandom.current().nextInt(3);
                            racing.leave(name, join(racing, name));
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    } finally {
                        done.countDown();
                    }
                });
                thread.setDaemon(true);
                thread.start();
            }
            assertTrue(done.await(50, TimeUnit.SECONDS));
            assertEquals(List.of(), failures);
            racing.close();
            assertTrue(store.open.isEmpty(), store.open.size() + " subscriptions still open after close");
            assertEquals(store.opened.get(), store.closedOnce(), "every subscription must be closed exactly once");
        } finally {
            scheduler.shutdownNow();
        }
    }
}
