package io.locksmith.etcd;

import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockStoreException;
import io.locksmith.spi.CallDeadline;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Runs one etcd request with a bound, turning failures into {@link LockStoreException}s that name the store.
 *
 * <p>A request that meets a transient failure (no leader, a member gone, no answer) is sent again until
 * the time-out: when a leader dies, the request a follower forwarded to it is simply lost, and only a new
 * attempt reaches the next leader. Every request of this backend may be repeated: puts are conditional on
 * a key that only their owner writes, deletes compare the create revision, reads and keep-alives change
 * nothing; a repeated lease grant leaves at most an unused lease that ends with its TTL.
 */
final class Calls {

    /** A single attempt gets a quarter of the time-out, but at least this. */
    private static final long MIN_ATTEMPT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final long RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private Calls() {
    }

    /**
     * @param lockName the lock concerned, or {@code null}
     * @param what     what was asked, for the message, e.g. "acquire"
     * @throws LockStoreException       if the request failed for good, or did not succeed within {@code timeout} (or
     *                                  what is left of the thread's {@link CallDeadline}, if that is shorter)
     * @throws LockInterruptedException if the thread was interrupted (the flag is restored); never within a call
     *                                  deadline ({@link CallDeadline#within}), where the flag is restored when the
     *                                  request ends
     */
    static <T> T await(Reachability members, Supplier<CompletableFuture<T>> request, Duration timeout, String store,
                       String lockName, String what) {
        // Within a provider call made on the caller's thread (a call deadline), an interrupt does not end the call:
        // it ends by its deadline, and the caller sees the interrupt when it returns, as the SPI's callTimeLimit()
        // promises. A release cut short by an interrupt left the key behind for its lease's lifetime (TCK R1.5).
        boolean rideOutInterrupts = CallDeadline.isSet();
        boolean interrupted = false;
        long deadline = System.nanoTime() + CallDeadline.remainingNanos(timeout.toNanos());
        long attemptNanos = Math.max(MIN_ATTEMPT_NANOS, timeout.toNanos() / 4);
        Throwable last = null;
        boolean loggedInAgain = false;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new LockStoreException(lockName, store + " did not answer " + what + " within " + timeout
                            + lastError(last), last);
                }
                CompletableFuture<T> future = request.get();
                long attemptEnd = System.nanoTime() + Math.min(left, attemptNanos);
                try {
                    while (true) {
                        try {
                            return future.get(Math.max(0, attemptEnd - System.nanoTime()), TimeUnit.NANOSECONDS);
                        } catch (InterruptedException e) {
                            if (!rideOutInterrupts) {
                                future.cancel(true);
                                Thread.currentThread().interrupt();
                                throw new LockInterruptedException(lockName, e);
                            }
                            interrupted = true;
                        }
                    }
                } catch (TimeoutException e) {
                    future.cancel(true);
                    last = e;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause() == null ? e : e.getCause();
                    if (isRefused(cause)) {
                        // gRPC fails a request with a refused connection only once no member it knows takes one, or
                        // while it waits to try again. Every member refusing now is an outage: retrying until the bound
                        // would make a dead etcd look like a busy lock to a short wait, and the shared client learns
                        // the outage from the refusal (R9.14). Otherwise the channel reconnects now and we retry.
                        java.net.ConnectException refused = members.everyMemberRefuses();
                        if (refused != null) {
                            LockStoreException down = new LockStoreException(lockName, store + " refuses connections ("
                                    + what + "): " + refused.getMessage(), refused);
                            down.addSuppressed(cause);
                            throw down;
                        }
                    } else if (isTokenRefused(cause) && !loggedInAgain) {
                        // etcd no longer knows the client's auth token: unused for longer than --auth-token-ttl,
                        // or the member restarted (simple tokens live in its memory). jetcd has dropped the token
                        // when it saw the refusal, but fails the request (jetcd issues #163, #177, #1336): sent once
                        // more, it logs in again first. Every request here may be repeated (see the class comment).
                        loggedInAgain = true;
                        last = cause;
                        continue;
                    } else if (isLoginRefused(cause)) {
                        // The re-login after a refused token failed: the password changed, or the user is gone.
                        // jetcd's status has no description here ("UNAUTHENTICATED"), so say what it means.
                        throw new LockStoreException(lockName, store + " refused the login of the client's user ("
                                + what + "; " + cause.getMessage() + "): its password may have changed or the user"
                                + " been removed. With passwordFile, put the current password in that file (the next"
                                + " login reads it); otherwise open a new client with the current credentials", cause);
                    } else if (isTlsFailure(cause) || !isTransient(cause)) {
                        // A failed TLS handshake will fail the same way on the next attempt: gRPC reports it as
                        // UNAVAILABLE, which would otherwise be retried until the bound and end as "did not answer".
                        throw new LockStoreException(lockName, store + " failed to " + what + ": " + cause.getMessage(),
                                cause);
                    }
                    last = cause;
                    LockSupport.parkNanos(Math.min(RETRY_PAUSE_NANOS, Math.max(0, deadline - System.nanoTime())));
                    if (Thread.interrupted()) {
                        if (!rideOutInterrupts) {
                            Thread.currentThread().interrupt();
                            throw new LockInterruptedException(lockName,
                                    new InterruptedException("interrupted during " + what));
                        }
                        interrupted = true;
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * What the last attempt met, for the message: an attempt that got no answer at all says so (a time-out has no
     * message of its own, which used to print as "(last error: null)").
     */
    static String lastError(Throwable last) {
        if (last == null) {
            return "";
        }
        if (last instanceof TimeoutException) {
            return " (the last attempt got no answer)";
        }
        String message = last.getMessage();
        return " (last error: " + (message == null || message.isBlank() ? last.getClass().getSimpleName() : message)
                + ")";
    }

    /** Whether the failure's cause chain holds a refused connection (or no route to the host at all). */
    static boolean isRefused(Throwable error) {
        int depth = 0;
        for (Throwable t = error; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof java.net.ConnectException || t instanceof java.net.NoRouteToHostException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether etcd refused the client's auth token (jetcd's {@code Errors.isInvalidTokenError} and
     * {@code isAuthStoreExpired}, by message: jetcd's exceptions do not keep the gRPC status code everywhere).
     */
    static boolean isTokenRefused(Throwable error) {
        int depth = 0;
        for (Throwable t = error; t != null && depth < 32; t = t.getCause(), depth++) {
            String message = t.getMessage();
            if (message != null && (message.contains("invalid auth token")
                    || message.contains("revision of auth store is old"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether etcd refused the client's login itself (not a stale token): a wrong password or an unknown user, as
     * jetcd reports the failed re-login of a running client (a bare {@code UNAUTHENTICATED}) or the first login.
     */
    static boolean isLoginRefused(Throwable error) {
        if (isTokenRefused(error)) {
            return false;
        }
        int depth = 0;
        for (Throwable t = error; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof EtcdException etcd && etcd.getErrorCode() == ErrorCode.UNAUTHENTICATED) {
                return true;
            }
            String message = t.getMessage();
            if (message != null && (message.startsWith("UNAUTHENTICATED") || message.contains("authentication failed"))) {
                return true;
            }
        }
        return false;
    }

    /** Whether the failure's cause chain holds a failed TLS handshake or an unacceptable certificate. */
    static boolean isTlsFailure(Throwable error) {
        return tlsCause(error) != null;
    }

    /** The message of the TLS failure in the cause chain, for an explanation. */
    static String tlsMessage(Throwable error) {
        Throwable cause = tlsCause(error);
        return cause == null ? "" : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    private static Throwable tlsCause(Throwable error) {
        int depth = 0;
        for (Throwable t = error; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof javax.net.ssl.SSLException || t instanceof java.security.cert.CertificateException) {
                return t;
            }
        }
        return null;
    }

    /** Failures that a later attempt may not meet: no leader yet, a member down, a lost proposal. */
    static boolean isTransient(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof EtcdException etcd && (etcd.getErrorCode() == ErrorCode.UNAVAILABLE
                    || etcd.getErrorCode() == ErrorCode.DEADLINE_EXCEEDED)) {
                return true;
            }
            String message = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
            if (message.contains("no leader") || message.contains("leader changed") || message.contains("timed out")
                    || message.contains("unavailable") || message.contains("connection refused")) {
                return true;
            }
        }
        return false;
    }
}
