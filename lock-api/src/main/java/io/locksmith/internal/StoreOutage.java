package io.locksmith.internal;

import io.locksmith.LockStoreException;
import io.locksmith.spi.LockProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether the client knows its store to be unreachable (SPEC R9.14): the one owner of that knowledge. Every provider
 * call made through {@link StoreCalls} reports its outcome here, a late one included (a call the caller stopped
 * waiting for). A failure whose cause chain holds a refused or impossible connection ({@link #isUnreachable}) starts
 * an outage: acquires then fail at once with the store's error instead of waiting, the client's waiters are woken to
 * end with it, and a background probe asks the store every {@link #PROBE_PERIOD_NANOS} until it answers. Any
 * successful call (the probe's or another) ends the outage.
 *
 * <p>A store that stops answering (a frozen server, a blackholed network path) is not an outage by this definition:
 * a time-out says nothing about whether the store is back a moment later, and a bounded wait rides it out (R7.7).
 * A refused connection says the store is not there now.
 */
final class StoreOutage {

    private static final Logger LOG = LoggerFactory.getLogger(StoreOutage.class);
    /** How often the probe asks while an outage lasts: the longest a restarted store waits to be used again. */
    static final long PROBE_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(300);
    /** The longest one probe waits for the store: a probe stuck on a silent store must not delay the next. */
    static final long PROBE_BOUND_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The lock name the probe inspects; nobody needs to hold it. */
    static final String PROBE_NAME = "locksmith-outage-probe";

    private record Failure(long atNanos, Throwable error) {
    }

    /** An outage: since when (wall clock for the message, nanoTime for ordering) and the last error seen. */
    private record Known(Instant since, long sinceNanos, Throwable lastError) {
    }

    private final String store;
    private final Object guard = new Object();
    /** The outage under way, or null. Read without the guard on every acquire: it must cost one volatile read. */
    private volatile Known known;
    /** Guarded by {@link #guard}: when the last outage ended (nanoTime); calls started before it report nothing. */
    private long endedAtNanos;
    private boolean everEnded;
    private final AtomicBoolean probing = new AtomicBoolean();
    /** The last failure of any kind (a time-out too), and when it ended; null until one. */
    private volatile Failure lastFailure;
    /** When the last successful call ended. */
    private volatile long lastSuccessNanos = System.nanoTime();
    // Set once by start(): the probe's and the wake-up's means, which exist only after the client's parts do.
    private volatile LockProvider provider;
    private volatile StoreCalls calls;
    private volatile ClientTimer timer;
    private volatile Runnable wakeWaiters;
    private long probeBoundNanos = PROBE_BOUND_NANOS;

    StoreOutage(String store) {
        this.store = store;
    }

    /**
     * Gives the outage its means once the client's parts exist: the probe runs {@code provider.inspect} through
     * {@code calls}, scheduled by {@code timer}; {@code wakeWaiters} wakes every local waiter of the client.
     */
    void start(LockProvider provider, StoreCalls calls, ClientTimer timer, Runnable wakeWaiters, long commandTimeoutNanos) {
        this.provider = provider;
        this.calls = calls;
        this.timer = timer;
        this.wakeWaiters = wakeWaiters;
        this.probeBoundNanos = Math.min(PROBE_BOUND_NANOS, commandTimeoutNanos);
    }

    /**
     * Whether {@code failure} says the store cannot be reached at all: a refused connection, no route, a host name
     * that does not resolve, anywhere in its cause chain. A time-out is not (see the class comment).
     */
    static boolean isUnreachable(Throwable failure) {
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth < 32; cause = cause.getCause(), depth++) {
            if (cause instanceof java.net.ConnectException || cause instanceof java.net.NoRouteToHostException
                    || cause instanceof java.net.UnknownHostException) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code failure} is a store call that got no answer in time (a frozen or cut-off store). */
    static boolean isTimeout(Throwable failure) {
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth < 32; cause = cause.getCause(), depth++) {
            if (cause instanceof java.net.SocketTimeoutException || cause instanceof java.util.concurrent.TimeoutException) {
                return true;
            }
        }
        return false;
    }

    /** Whether an outage is known now. */
    boolean isKnown() {
        return known != null;
    }

    /** The error an acquire of {@code lockName} fails with while the outage lasts, if one is known. */
    Optional<LockStoreException> error(String lockName) {
        Known current = known;
        if (current == null) {
            return Optional.empty();
        }
        Throwable last = current.lastError;
        return Optional.of(new LockStoreException(lockName, store + " is unreachable since " + current.since
                + " (last error: " + describe(last) + "); calls fail fast until the store answers again", last));
    }

    /**
     * The error of the client's last store call, if that call failed (a time-out included) and no call has
     * succeeded since: the store is in trouble. A wait that ends without the lock then ends with this error rather
     * than a time-out, also for a local waiter that never asked the store itself (only the first waiter of a name
     * does): a store that fails is not a busy lock.
     */
    Optional<Throwable> failing() {
        Failure failure = lastFailure;
        if (failure == null || failure.atNanos - lastSuccessNanos < 0) {
            return Optional.empty();
        }
        return Optional.of(failure.error);
    }

    /** Throws the outage's error for {@code lockName}, if an outage is known. */
    void check(String lockName) {
        Optional<LockStoreException> error = error(lockName);
        if (error.isPresent()) {
            throw error.get();
        }
    }

    /** A provider call that started at {@code startNanos} failed with {@code failure}, on time or late. */
    void failed(long startNanos, Throwable failure) {
        lastFailure = new Failure(System.nanoTime(), failure);
        if (!isUnreachable(failure)) {
            return;
        }
        boolean started = false;
        synchronized (guard) {
            if (everEnded && startNanos - endedAtNanos < 0) {
                // Began before the store was seen back (an old call abandoned at its bound, failing only now): it
                // says nothing about the store since.
                return;
            }
            Known current = known;
            if (current == null) {
                known = new Known(Instant.now(), System.nanoTime(), failure);
                started = true;
            } else {
                known = new Known(current.since, current.sinceNanos, failure);
            }
        }
        if (started) {
            LOG.info("{} is unreachable ({}): acquires fail fast until it answers again", store, describe(failure));
            Runnable wake = wakeWaiters;
            if (wake != null) {
                wake.run();
            }
            scheduleProbe();
        }
    }

    /** A provider call that started at {@code startNanos} succeeded: the store answers, unless the call is older. */
    void succeeded(long startNanos) {
        lastSuccessNanos = System.nanoTime();
        Known current = known;
        if (current == null || startNanos - current.sinceNanos < 0) {
            // No outage, or a call sent before it began, whose answer proves nothing about the store now.
            return;
        }
        synchronized (guard) {
            if (known != current) {
                return;
            }
            known = null;
            endedAtNanos = System.nanoTime();
            everEnded = true;
        }
        LOG.info("{} answers again after an outage since {}", store, current.since);
    }

    private void scheduleProbe() {
        ClientTimer scheduler = timer;
        if (scheduler == null || !probing.compareAndSet(false, true)) {
            return;
        }
        if (scheduler.schedule(this::probe, PROBE_PERIOD_NANOS) == null) {
            probing.set(false); // the client is closing
        }
    }

    /** On the timer's thread: hands one probe to a store-call thread; the next is scheduled when it ends. */
    private void probe() {
        StoreCalls through = calls;
        LockProvider target = provider;
        // A task, not a provider call: the probe's own store call takes its turn among the calls in flight.
        through.runAsync(PROBE_NAME, () -> {
            try {
                if (known != null) {
                    through.call(PROBE_NAME, "outage probe", () -> target.inspect(PROBE_NAME), probeBoundNanos, null);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                LOG.debug("outage probe of {} failed", store, e);
            } finally {
                probing.set(false);
                if (known != null) {
                    scheduleProbe();
                }
            }
        }).exceptionally(closed -> {
            probing.set(false); // the client is closed: no more probes
            return null;
        });
    }

    /** The error, and the refused connection under it if there is one: what an operator needs to read. */
    private static String describe(Throwable failure) {
        if (failure == null) {
            return "none";
        }
        String top = failure.getClass().getSimpleName() + ": " + failure.getMessage();
        int depth = 0;
        for (Throwable cause = failure.getCause(); cause != null && depth < 32; cause = cause.getCause(), depth++) {
            if (isUnreachable(cause) && (cause.getCause() == null || !isUnreachable(cause.getCause()))) {
                return top + ", caused by " + cause.getClass().getSimpleName() + ": " + cause.getMessage();
            }
        }
        return top;
    }
}
