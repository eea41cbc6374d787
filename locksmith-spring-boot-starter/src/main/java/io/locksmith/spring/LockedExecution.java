package io.locksmith.spring;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockException;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.LockTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Acquiring, running under and releasing a lock for {@link Locked @Locked} methods and {@link LockTemplate}: the one
 * place that sets {@link LockContext}, releases, and writes the single log line of a lock that was not obtained.
 */
final class LockedExecution {

    /** The logger of failed {@code @Locked} and template calls: one WARN line each, the stack trace at DEBUG. */
    static final Logger LOG = LoggerFactory.getLogger("io.locksmith.spring.Locked");

    /**
     * Set while a call acquires, so that {@link LockEventLogger} leaves an acquire failure to the caller's single
     * log line instead of writing a second one with a stack trace.
     */
    private static final ThreadLocal<Boolean> CALLER_REPORTS_FAILURE = new ThreadLocal<>();

    /**
     * Asynchronous {@code @Locked} acquires under way, by lock name: their failures are reported by the call's own line.
     * By name, as an event carries nothing more specific; a direct acquire of the same name failing at the same moment
     * is then left to the call's line too, which names the lock and the cause.
     */
    private static final ConcurrentHashMap<String, Integer> ASYNC_ACQUIRES =
            new ConcurrentHashMap<>();

    /** Work done under a lock. */
    @FunctionalInterface
    interface Body {
        Object run() throws Throwable;
    }

    private LockedExecution() {
    }

    /**
     * Acquires {@code name}, waiting at most {@code wait}.
     *
     * @param options the lock's options, or null for the client's defaults
     * @throws LockTimeoutException if the lock stayed busy
     * @throws LockStoreException   if the store failed or is not reachable
     */
    static Lease acquire(LockClient client, String name, LockOptions options, Duration wait) {
        return acquire(options == null ? client.lock(name) : client.lock(name, options), wait);
    }

    /**
     * Acquires {@code lock} (a mutex, a read or write lock, or a semaphore's permits), waiting at most {@code wait}.
     *
     * @throws LockTimeoutException if the lock stayed busy
     * @throws LockStoreException   if the store failed or is not reachable
     */
    static Lease acquire(DistributedLock lock, Duration wait) {
        CALLER_REPORTS_FAILURE.set(Boolean.TRUE);
        try {
            return lock.acquire(wait);
        } finally {
            CALLER_REPORTS_FAILURE.remove();
        }
    }

    /**
     * Whether a failed acquire of {@code lockName} is reported by its caller: the acquire runs on this thread for a
     * {@code @Locked} or template call (see {@link #CALLER_REPORTS_FAILURE}), or an asynchronous {@code @Locked} call
     * acquires that name now (its acquire fails on the client's threads, where no thread-local reaches).
     */
    static boolean callerReportsFailure(String lockName) {
        return CALLER_REPORTS_FAILURE.get() != null || ASYNC_ACQUIRES.containsKey(lockName);
    }

    /**
     * Marks an asynchronous acquire of {@code lockName} as reported by its caller until the returned action runs (once:
     * later runs do nothing); run it when the acquire has ended, after its outcome's event.
     */
    static Runnable asyncAcquireReportedByCaller(String lockName) {
        ASYNC_ACQUIRES.merge(lockName, 1, Integer::sum);
        AtomicBoolean ended = new AtomicBoolean();
        return () -> {
            if (ended.compareAndSet(false, true)) {
                ASYNC_ACQUIRES.computeIfPresent(lockName, (name, count) -> count == 1 ? null : count - 1);
            }
        };
    }

    /**
     * Runs {@code body} with {@code lease} as {@link LockContext#currentLease()}, then releases it. A release failure
     * after the body returned is logged (the lock runs out at its lease time) rather than failing finished work;
     * after the body threw it is added to that exception as suppressed.
     */
    static Object runHolding(Lease lease, String what, Body body) throws Throwable {
        return runHolding(lease, what, null, 0, body);
    }

    /**
     * As {@link #runHolding(Lease, String, Body)}, keeping the lock until {@code minHold} after {@code acquiredAtNanos}
     * (a {@link System#nanoTime()} taken when the acquire returned) if the body ends sooner, whether it returns or
     * throws.
     *
     * @param minHold how long the lock is held at least, or null for none
     */
    static Object runHolding(Lease lease, String what, Duration minHold, long acquiredAtNanos, Body body)
            throws Throwable {
        LockContext.push(lease);
        Object result;
        try {
            result = body.run();
        } catch (Throwable failure) {
            LockContext.pop();
            try {
                release(lease, minHold, acquiredAtNanos);
            } catch (RuntimeException releaseFailure) {
                failure.addSuppressed(releaseFailure);
            }
            throw failure;
        }
        LockContext.pop();
        try {
            release(lease, minHold, acquiredAtNanos);
        } catch (LockException releaseFailure) {
            LOG.warn("lock '{}' could not be released after {} completed; it expires at its lease time",
                    lease.lockName(), what, releaseFailure);
        }
        return result;
    }

    private static void release(Lease lease, Duration minHold, long acquiredAtNanos) {
        if (minHold == null) {
            lease.close();
            return;
        }
        // Counted from the acquire's return, which is after the store granted the lock: the hold is never shorter.
        Duration left = minHold.minusNanos(System.nanoTime() - acquiredAtNanos);
        if (left.isNegative() || left.isZero()) {
            lease.close();
        } else {
            lease.closeAfter(left);
        }
    }

    /**
     * Writes the one line of a call whose lock was not obtained: WARN with the lock, the wait and the cause (its
     * stack trace only at DEBUG), or DEBUG for {@code quiet} outcomes (a busy lock the caller chose to skip).
     */
    static void logFailure(String what, String lockName, Duration wait, LockException cause, String outcome,
                           boolean quiet) {
        String reason = cause instanceof LockTimeoutException ? "busy for the whole wait"
                : "store error: " + cause.getMessage() + causeText(cause);
        if (quiet || !LOG.isWarnEnabled()) {
            LOG.debug("{}: lock '{}' not obtained within {}, {}; {}", what, lockName, wait, reason, outcome);
        } else if (LOG.isDebugEnabled()) {
            LOG.warn("{}: lock '{}' not obtained within {}, {}; {}", what, lockName, wait, reason, outcome, cause);
        } else {
            LOG.warn("{}: lock '{}' not obtained within {}, {}; {} (stack trace at DEBUG)", what, lockName, wait,
                    reason, outcome);
        }
    }

    private static String causeText(Throwable e) {
        Throwable root = e.getCause();
        if (root == null) {
            return "";
        }
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return " (" + root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage()) + ")";
    }
}
