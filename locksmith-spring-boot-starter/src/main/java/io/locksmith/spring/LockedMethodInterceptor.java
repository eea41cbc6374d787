package io.locksmith.spring;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockException;
import io.locksmith.LockStoreException;
import io.locksmith.LockTimeoutException;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.expression.BeanResolver;
import org.springframework.util.ClassUtils;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/** Runs a {@link Locked} method under its lock; see {@link Locked} for the contract. */
final class LockedMethodInterceptor implements MethodInterceptor {

    private final LockedMethods methods;
    // Looked up on first use: advisors are created before most beans, and the client must not be created that early.
    private final ObjectProvider<LockClient> client;
    private final Supplier<Duration> defaultWait;
    private final BeanResolver beans;
    private final BeanFactory beanFactory;
    /** Where a CompletionStage method runs once a lock it waited for is granted. */
    private final Supplier<Executor> asyncExecutor;

    LockedMethodInterceptor(LockedMethods methods, ObjectProvider<LockClient> client, Supplier<Duration> defaultWait,
                            BeanResolver beans, BeanFactory beanFactory, Supplier<Executor> asyncExecutor) {
        this.methods = methods;
        this.client = client;
        this.defaultWait = defaultWait;
        this.beans = beans;
        this.beanFactory = beanFactory;
        this.asyncExecutor = asyncExecutor;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? null : AopUtils.getTargetClass(target);
        Optional<LockedMethod> found = methods.find(invocation.getMethod(), targetClass);
        if (found.isEmpty()) {
            return invocation.proceed();
        }
        LockedMethod locked = found.get();
        LockClient locks = client.getObject();
        String name = locked.lockName(invocation.getArguments(), target, targetClass, beans);
        Duration wait = locked.waitTime().orElseGet(defaultWait);
        if (locked.execution() != LockedMethod.Execution.BLOCKING) {
            return invokeAsync(locked, invocation, locks, name, wait);
        }
        Lease lease;
        try {
            lease = LockedExecution.acquire(locked.target(locks, name), wait);
        } catch (LockTimeoutException | LockStoreException notObtained) {
            return onFailure(locked, invocation, name, wait, notObtained);
        }
        return LockedExecution.runHolding(lease, locked.shortName(), locked.minHold().orElse(null), System.nanoTime(),
                invocation::proceed);
    }

    /**
     * A method whose work goes on after it returns: the lock is acquired without blocking, the method runs once it is
     * granted, and the lock is held until the asynchronous result ends. Failures arrive through that result.
     */
    private Object invokeAsync(LockedMethod locked, MethodInvocation invocation, LockClient locks, String name,
                               Duration wait) {
        AsyncLockedCall call = new AsyncLockedCall() {
            @Override
            public DistributedLock lock() {
                return locked.target(locks, name);
            }

            @Override
            public Duration waitTime() {
                return wait;
            }

            @Override
            public Object proceed(Lease lease) throws Throwable {
                return invocation.proceed();
            }

            @Override
            public Object notObtained(LockException cause) {
                return onFailure(locked, invocation, name, wait, cause);
            }

            @Override
            public String what() {
                return locked.shortName();
            }
        };
        return switch (locked.execution()) {
            case COMPLETION_STAGE -> CompletionStageLocking.call(call, asyncExecutor.get());
            case MONO, SUSPENDING -> ReactiveLocking.mono(call);
            case FLUX, SUSPENDING_FLOW -> ReactiveLocking.flux(call);
            case BLOCKING -> throw new IllegalStateException("not asynchronous: " + locked);
        };
    }

    private Object onFailure(LockedMethod locked, MethodInvocation invocation, String name, Duration wait,
                             LockException cause) {
        String what = "@Locked " + locked.shortName();
        switch (locked.failureStrategy()) {
            case SKIP -> {
                LockedExecution.logFailure(what, name, wait, cause, "skipped the call",
                        cause instanceof LockTimeoutException);
                return locked.skippedResult();
            }
            case HANDLER -> {
                LockedExecution.logFailure(what, name, wait, cause,
                        "outcome decided by the LockFailureHandler '" + locked.failureHandler() + "'", false);
                LockFailureHandler handler = beanFactory.getBean(locked.failureHandler(), LockFailureHandler.class);
                Object result = handler.handle(new LockFailure(name, locked.method(), invocation.getArguments(), wait,
                        cause));
                return checkedResult(locked, result);
            }
            default -> {
                LockedExecution.logFailure(what, name, wait, cause, "threw " + cause.getClass().getSimpleName(), false);
                throw cause;
            }
        }
    }

    private static Object checkedResult(LockedMethod locked, Object result) {
        Class<?> type = locked.method().getReturnType();
        if (type == void.class) {
            return null;
        }
        if (result == null ? type.isPrimitive() : !ClassUtils.isAssignableValue(type, result)) {
            throw new IllegalStateException("the LockFailureHandler '" + locked.failureHandler() + "' returned "
                    + (result == null ? "null" : "a " + result.getClass().getName()) + " for " + locked.shortName()
                    + ", which returns " + type.getName());
        }
        return result;
    }
}
