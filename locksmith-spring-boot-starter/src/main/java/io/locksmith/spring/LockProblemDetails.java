package io.locksmith.spring;

import io.locksmith.LockLostException;
import io.locksmith.LockStoreException;
import io.locksmith.LockTimeoutException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import java.time.Duration;

/**
 * Answers lock failures that reach a Spring MVC or Spring WebFlux controller with an RFC 9457 {@link ProblemDetail}
 * instead of a 500 and a stack trace (on WebFlux also when the failure is the error of the {@code Mono} or
 * {@code Flux} a controller returned):
 * <ul>
 * <li>{@link LockTimeoutException} (the lock stayed busy for the whole wait): {@code 409 Conflict} (or the
 *     status set in {@code locksmith.web.lock-timeout-status}) with {@code Retry-After};</li>
 * <li>{@link LockStoreException} (the store failed or is not reachable yet) and {@link LockLostException} (the
 *     lease was lost while the work ran): {@code 503 Service Unavailable} with {@code Retry-After}.</li>
 * </ul>
 * The body does not name the lock (names may carry identifiers of other callers); the failure's single WARN line
 * does. It runs after the application's own {@code @ExceptionHandler}s (its order is the lowest), so a
 * controller or advice of the application that handles these exceptions wins. Switched off by
 * {@code locksmith.web.problem-details=false}.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockProblemDetails {

    private final HttpStatus lockTimeoutStatus;
    private final String retryAfterSeconds;

    /**
     * @param lockTimeoutStatus the status of a lock wait that timed out: 409 or 503
     * @param retryAfter        the {@code Retry-After} of both answers, rounded up to whole seconds
     * @throws IllegalArgumentException if the status is not 409 or 503, or the duration is negative
     */
    public LockProblemDetails(int lockTimeoutStatus, Duration retryAfter) {
        if (lockTimeoutStatus != 409 && lockTimeoutStatus != 503) {
            throw new IllegalArgumentException("locksmith.web.lock-timeout-status must be 409 or 503, was "
                    + lockTimeoutStatus);
        }
        if (retryAfter.isNegative()) {
            throw new IllegalArgumentException("locksmith.web.retry-after must not be negative, was " + retryAfter);
        }
        this.lockTimeoutStatus = HttpStatus.valueOf(lockTimeoutStatus);
        long millis = retryAfter.toMillis();
        this.retryAfterSeconds = Long.toString((millis + 999) / 1000);
    }

    /** A lock that stayed busy: the resource is being changed by another request. */
    @ExceptionHandler(LockTimeoutException.class)
    public ResponseEntity<ProblemDetail> lockTimedOut(LockTimeoutException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(lockTimeoutStatus,
                "The resource is being changed by another request; retry later.");
        problem.setTitle("Resource busy");
        return answer(problem);
    }

    /** The store failed: locking is unavailable for now. */
    @ExceptionHandler(LockStoreException.class)
    public ResponseEntity<ProblemDetail> storeFailed(LockStoreException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "The lock store is unavailable; retry later.");
        problem.setTitle("Lock store unavailable");
        return answer(problem);
    }

    /** The lease ran out or was taken while the work ran: the work stopped and may be retried. */
    @ExceptionHandler(LockLostException.class)
    public ResponseEntity<ProblemDetail> lockLost(LockLostException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "The lock guarding this request was lost before the work finished; retry later.");
        problem.setTitle("Lock lost");
        return answer(problem);
    }

    private ResponseEntity<ProblemDetail> answer(ProblemDetail problem) {
        return ResponseEntity.status(problem.getStatus()).header(HttpHeaders.RETRY_AFTER, retryAfterSeconds)
                .body(problem);
    }
}
