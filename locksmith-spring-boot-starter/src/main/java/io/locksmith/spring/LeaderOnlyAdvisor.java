package io.locksmith.spring;

import io.locksmith.Lease;
import io.locksmith.LockConfigurationException;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * The Spring AOP advisor behind {@link LeaderOnly}: a pointcut on annotated methods (checked when the proxy is made)
 * and the interceptor that runs a call only under this instance's current term.
 */
public final class LeaderOnlyAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger("io.locksmith.spring.LeaderOnly");

    private final transient LeaderOnlyCandidates candidates;
    private final transient UnaryOperator<String> placeholders;
    /** The election name of each annotated method, by the method as declared (the most specific). */
    private final transient Map<Method, String> elections = new ConcurrentHashMap<>();
    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        {
            setClassFilter(type -> AnnotationUtils.isCandidateClass(type, LeaderOnly.class));
        }

        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return election(method, targetClass) != null;
        }
    };
    private final transient Advice advice = (MethodInterceptor) invocation -> {
        Object target = invocation.getThis();
        String name = election(invocation.getMethod(), target == null ? null : AopUtils.getTargetClass(target));
        if (name == null) {
            return invocation.proceed();
        }
        LeaderOnlyCandidates.Candidate candidate = candidates().candidate(name);
        Lease term = candidate == null ? null : candidate.currentTerm();
        if (term == null) {
            LOG.debug("@LeaderOnly {}: not the leader of '{}', call skipped", invocation.getMethod().getName(), name);
            return invocation.getMethod().getReturnType() == Optional.class ? Optional.empty() : null;
        }
        try (LeaderOnlyCandidates.Candidate.Run ignored = candidate.run(term)) {
            LockContext.push(term);
            try {
                return invocation.proceed();
            } finally {
                LockContext.pop();
            }
        }
    };

    LeaderOnlyAdvisor(LeaderOnlyCandidates candidates, UnaryOperator<String> placeholders, int order) {
        this.candidates = candidates;
        this.placeholders = placeholders;
        setOrder(order);
    }

    LeaderOnlyCandidates candidates() {
        return candidates;
    }

    /** The election of {@code method} as called on {@code targetClass}, or null if it is not annotated. */
    private String election(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        String known = elections.get(specific);
        if (known != null) {
            return known;
        }
        LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(specific, LeaderOnly.class);
        if (annotation == null) {
            return null;
        }
        String name = check(specific, annotation);
        elections.put(specific, name);
        candidates.register(name);
        return name;
    }

    private String check(Method method, LeaderOnly annotation) {
        String where = "@LeaderOnly on " + method.getDeclaringClass().getName() + "." + method.getName() + ": ";
        String name;
        try {
            name = placeholders.apply(annotation.value()).strip();
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(where + e.getMessage(), e);
        }
        if (name.isEmpty()) {
            throw new LockConfigurationException(where + "the election name is empty");
        }
        if (AnnotatedElementUtils.hasAnnotation(method, Locked.class)) {
            throw new LockConfigurationException(where + "the method is also @Locked; a leader-only method runs on one"
                    + " instance already (use one or the other)");
        }
        Class<?> type = method.getReturnType();
        if (type.isPrimitive() && type != void.class) {
            throw new LockConfigurationException(where + "a skipped call has no " + type + " to return: return void,"
                    + " an object or an Optional");
        }
        // The same reading of return types as @Locked's (CompletionStage, Future, Reactive Streams, RxJava, Mutiny,
        // Kotlin's Flow and suspend functions): anything but a plain blocking method is refused.
        LockedMethod.Execution execution = AsyncReturnTypes.executionOf(method,
                (problem, cause) -> new LockConfigurationException(where + "it " + problem, cause));
        if (execution != LockedMethod.Execution.BLOCKING) {
            throw new LockConfigurationException(where + "it returns " + type.getName() + ", whose work goes on after"
                    + " the call: a leader-only method must do its work before it returns");
        }
        return name;
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
