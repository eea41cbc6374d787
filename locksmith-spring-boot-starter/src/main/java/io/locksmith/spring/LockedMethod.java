package io.locksmith.spring;

import io.locksmith.LockConfigurationException;
import io.locksmith.LockOptions;
import io.locksmith.spi.Durations;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;

/**
 * What one {@link Locked} method asks for, checked once (at startup, when the proxy is made): the parsed name
 * expression, the durations, the return type. Every problem names the method.
 */
final class LockedMethod {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    private final Method method;
    private final String nameSource;
    private final Expression name;
    private final Duration wait;
    private final Duration lease;
    private final Duration maxHold;
    private final Locked.Renewal renewal;
    private final Locked.OnTimeout onTimeout;

    private LockedMethod(Method method, Locked locked, UnaryOperator<String> placeholders) {
        this.method = method;
        this.nameSource = locked.name();
        this.name = parseName(locked.name());
        this.wait = duration(placeholders.apply(locked.waitTime()), "waitTime", true);
        this.lease = duration(placeholders.apply(locked.leaseTime()), "leaseTime", false);
        this.maxHold = duration(placeholders.apply(locked.maxHold()), "maxHold", false);
        this.renewal = locked.renewal();
        this.onTimeout = locked.onTimeout();
        if (lease != null && maxHold != null && maxHold.compareTo(lease) < 0) {
            throw invalid("maxHold (" + maxHold + ") must not be shorter than leaseTime (" + lease + ")", null);
        }
        checkReturnType();
    }

    /**
     * Reads and checks the annotation of {@code method}; {@code placeholders} resolves {@code ${...}} in durations.
     *
     * @throws LockConfigurationException naming the method, if the annotation cannot work
     */
    static LockedMethod of(Method method, Locked locked, UnaryOperator<String> placeholders) {
        return new LockedMethod(method, locked, placeholders);
    }

    Method method() {
        return method;
    }

    /** The wait the annotation sets, or empty for the configured default. */
    Optional<Duration> waitTime() {
        return Optional.ofNullable(wait);
    }

    Locked.OnTimeout onTimeout() {
        return onTimeout;
    }

    /** Whether the annotation overrides any lease option of the client's defaults. */
    boolean overridesOptions() {
        return lease != null || maxHold != null || renewal != Locked.Renewal.DEFAULT;
    }

    /** The client's default options with this annotation's overrides. */
    LockOptions options(LockOptions defaults) {
        LockOptions.Builder options = defaults.toBuilder();
        if (lease != null) {
            options.leaseTime(lease);
        }
        if (maxHold != null) {
            options.maxHold(maxHold);
        } else if (lease != null && defaults.maxHold().isPresent() && defaults.maxHold().get().compareTo(lease) < 0) {
            // A lease longer than the default max hold would be refused: hold it one lease at most, as the URI does.
            options.maxHold(lease);
        }
        if (renewal == Locked.Renewal.RENEWING) {
            options.renewing();
        } else if (renewal == Locked.Renewal.FIXED) {
            options.fixedLease();
        }
        try {
            return options.build();
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage(), e);
        }
    }

    /**
     * Evaluates the lock name for one call.
     *
     * @throws LockConfigurationException if the expression fails or gives null or a blank text
     */
    String lockName(Object[] args, Object target, Class<?> targetClass, BeanResolver beans) {
        LockedMethodRoot root = new LockedMethodRoot(method, args, target, targetClass);
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, args, PARAMETER_NAMES);
        if (beans != null) {
            context.setBeanResolver(beans);
        }
        Object value;
        try {
            value = name.getValue(context);
        } catch (EvaluationException e) {
            throw invalid("name \"" + nameSource + "\" could not be evaluated: " + e.getMessage()
                    + hintForParameterNames(), e);
        }
        if (value == null || value.toString().isBlank()) {
            throw invalid("name \"" + nameSource + "\" gave " + (value == null ? "null" : "a blank name")
                    + hintForParameterNames(), null);
        }
        return value.toString();
    }

    /** What a skipped call returns. */
    Object skippedResult() {
        return method.getReturnType() == Optional.class ? Optional.empty() : null;
    }

    private Expression parseName(String source) {
        if (source.isBlank()) {
            throw invalid("name is empty; write a SpEL expression such as \"'order:' + #orderId\"", null);
        }
        try {
            return PARSER.parseExpression(source);
        } catch (ParseException e) {
            throw invalid("name \"" + source + "\" is not a SpEL expression (" + e.getMessage()
                    + "); quote literal text: \"'nightly-report'\"", e);
        }
    }

    private Duration duration(String text, String attribute, boolean zeroAllowed) {
        if (text.isBlank()) {
            return null;
        }
        Duration value;
        try {
            value = Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw invalid(attribute + " \"" + text + "\" is not a duration (e.g. 500ms, 3s, 2m, PT30S)", null);
        }
        if (value.isNegative() || (!zeroAllowed && value.isZero())) {
            throw invalid(attribute + " must be " + (zeroAllowed ? "zero or positive" : "positive") + ", was " + text, null);
        }
        return value;
    }

    private void checkReturnType() {
        Class<?> type = method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type)
                || isReactive(type)) {
            throw invalid("returns " + type.getSimpleName() + ": the lock would be released when the method returns,"
                    + " before the asynchronous work ends; lock inside the asynchronous work instead", null);
        }
        if (onTimeout == Locked.OnTimeout.SKIP && type.isPrimitive() && type != void.class) {
            throw invalid("onTimeout = SKIP needs a void, Optional or object return type, not " + type
                    + " (a skipped call has no value to return)", null);
        }
    }

    private static boolean isReactive(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                if (i.getName().equals("org.reactivestreams.Publisher")) {
                    return true;
                }
            }
        }
        return type.getName().equals("org.reactivestreams.Publisher");
    }

    private String hintForParameterNames() {
        return method.getParameterCount() > 0 && !method.getParameters()[0].isNamePresent()
                ? " (parameter names are not compiled in: compile with -parameters, or use #p0, #p1, ...)"
                : "";
    }

    private LockConfigurationException invalid(String problem, Throwable cause) {
        return new LockConfigurationException("@Locked on " + method.getDeclaringClass().getName() + "."
                + method.getName() + ": " + problem, cause);
    }

    @Override
    public String toString() {
        return "@Locked(" + nameSource + ") " + method;
    }
}
