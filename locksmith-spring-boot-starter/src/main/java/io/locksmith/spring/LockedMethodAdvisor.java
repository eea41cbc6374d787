package io.locksmith.spring;

import io.locksmith.LockClient;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotationUtils;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The Spring AOP advisor behind {@link Locked}: a pointcut on annotated methods and the interceptor that locks
 * around them. No AspectJ weaving; any auto-proxy creator applies it (the starter registers one if needed).
 */
public final class LockedMethodAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    /** Before {@code @Transactional} (whose default order is {@link Ordered#LOWEST_PRECEDENCE}), so it runs outside. */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    private final transient LockedMethods methods;
    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        {
            // Skips JDK classes (and the like) without looking at their methods.
            setClassFilter(type -> AnnotationUtils.isCandidateClass(type, Locked.class));
        }

        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            // Checking here makes a bad annotation fail the startup, when the proxy is made, not the first call.
            return methods.find(method, targetClass).isPresent();
        }
    };
    private final transient Advice advice;

    LockedMethodAdvisor(ObjectProvider<LockClient> client, Supplier<Duration> defaultWait, BeanFactory beanFactory,
                        UnaryOperator<String> placeholders, LockedMethod.FailureDefaults failureDefaults, int order,
                        Supplier<Executor> asyncExecutor) {
        this.methods = new LockedMethods(placeholders, failureDefaults);
        this.advice = new LockedMethodInterceptor(methods, client, defaultWait, new BeanFactoryResolver(beanFactory),
                beanFactory, asyncExecutor);
        setOrder(order);
    }

    /** The annotated methods of the beans proxied so far. */
    LockedMethods methods() {
        return methods;
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return advice;
    }
}
