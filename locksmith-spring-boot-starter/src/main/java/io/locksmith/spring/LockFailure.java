package io.locksmith.spring;

import io.locksmith.LockException;
import io.locksmith.LockTimeoutException;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * A {@link Locked @Locked} call whose lock was not obtained: it timed out, or the store failed (or has not
 * answered yet, under {@code locksmith.startup=lazy}). Handed to a {@link LockFailureHandler}.
 */
public final class LockFailure {

    private final String lockName;
    private final Method method;
    private final Object[] arguments;
    private final Duration waitTime;
    private final LockException cause;

    LockFailure(String lockName, Method method, Object[] arguments, Duration waitTime, LockException cause) {
        this.lockName = Objects.requireNonNull(lockName, "lockName");
        this.method = Objects.requireNonNull(method, "method");
        this.arguments = arguments == null ? new Object[0] : arguments.clone();
        this.waitTime = Objects.requireNonNull(waitTime, "waitTime");
        this.cause = Objects.requireNonNull(cause, "cause");
    }

    /** The evaluated lock name. */
    public String lockName() {
        return lockName;
    }

    /** The annotated method, which did not run. */
    public Method method() {
        return method;
    }

    /** The call's arguments (a copy). */
    public Object[] arguments() {
        return arguments.clone();
    }

    /** How long the call was willing to wait for the lock. */
    public Duration waitTime() {
        return waitTime;
    }

    /**
     * Why the lock was not obtained: a {@link LockTimeoutException} (somebody else holds it) or a
     * {@link io.locksmith.LockStoreException} (the store failed or is not reachable yet).
     */
    public LockException cause() {
        return cause;
    }

    /** Whether the lock was busy for the whole wait (rather than the store failing). */
    public boolean isTimeout() {
        return cause instanceof LockTimeoutException;
    }

    @Override
    public String toString() {
        return "LockFailure[lock '" + lockName + "', " + method.getDeclaringClass().getSimpleName() + "." + method.getName()
                + Arrays.toString(arguments) + ", wait " + waitTime + ": " + cause + "]";
    }
}
