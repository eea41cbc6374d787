package io.locksmith.spring;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockException;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.expression.BeanResolver;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/** Runs a {@link Locked} method under its lock; see {@link Locked} for the contract. */
final class LockedMethodInterceptor implements MethodInterceptor {

    private static final Logger LOG = LoggerFactory.getLogger(LockedMethodInterceptor.class);

    private final LockedMethods methods;
    // Looked up on first use: advisors are created before most beans, and the client must not be created that early.
    private final ObjectProvider<LockClient> client;
    private final Supplier<Duration> defaultWait;
    private final BeanResolver beans;

    LockedMethodInterceptor(LockedMethods methods, ObjectProvider<LockClient> client, Supplier<Duration> defaultWait,
                            BeanResolver beans) {
        this.methods = methods;
        this.client = client;
        this.defaultWait = defaultWait;
        this.beans = beans;
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
        DistributedLock lock = locks.lock(name);
        if (locked.overridesOptions()) {
            lock = locks.lock(name, locked.options(lock.options()));
        }
        Duration wait = locked.waitTime().orElseGet(defaultWait);
        Lease lease;
        if (locked.onTimeout() == Locked.OnTimeout.THROW) {
            lease = lock.acquire(wait);
        } else {
            Optional<Lease> acquired = lock.tryAcquire(wait);
            if (acquired.isEmpty()) {
                LOG.debug("lock '{}' not acquired within {}: skipped {}", name, wait, locked);
                return locked.skippedResult();
            }
            lease = acquired.get();
        }
        return runHolding(invocation, lease);
    }

    private static Object runHolding(MethodInvocation invocation, Lease lease) throws Throwable {
        LockContext.push(lease);
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            LockContext.pop();
            try {
                lease.close();
            } catch (RuntimeException releaseFailure) {
                failure.addSuppressed(releaseFailure);
            }
            throw failure;
        }
        LockContext.pop();
        try {
            lease.close();
        } catch (LockException releaseFailure) {
            // The work is done; the lock runs out at its TTL. Failing the call now would report finished work as failed.
            LOG.warn("lock '{}' could not be released after {} completed; it expires at its lease time",
                    lease.lockName(), invocation.getMethod().getName(), releaseFailure);
        }
        return result;
    }
}
