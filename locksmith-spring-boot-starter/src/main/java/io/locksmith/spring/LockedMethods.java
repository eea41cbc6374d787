package io.locksmith.spring;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/** Finds and caches the {@link Locked} annotation of a method as seen on a target class. Thread-safe. */
final class LockedMethods {

    private final Map<MethodClassKey, Optional<LockedMethod>> cache = new ConcurrentHashMap<>();
    private final UnaryOperator<String> placeholders;

    /** @param placeholders resolves {@code ${...}} placeholders in the duration attributes */
    LockedMethods(UnaryOperator<String> placeholders) {
        this.placeholders = placeholders;
    }

    /**
     * The checked annotation of {@code method} on {@code targetClass}, or empty when it has none.
     *
     * @throws io.locksmith.LockConfigurationException if the annotation is present but cannot work
     */
    Optional<LockedMethod> find(Method method, Class<?> targetClass) {
        MethodClassKey key = new MethodClassKey(method, targetClass);
        Optional<LockedMethod> found = cache.get(key);
        if (found == null) {
            found = read(method, targetClass);
            cache.put(key, found);
        }
        return found;
    }

    private Optional<LockedMethod> read(Method method, Class<?> targetClass) {
        // The implementation's method carries the parameter names and, usually, the annotation.
        Method specific = BridgeMethodResolver.findBridgedMethod(
                targetClass == null ? method : AopUtils.getMostSpecificMethod(method, targetClass));
        Locked locked = AnnotatedElementUtils.findMergedAnnotation(specific, Locked.class);
        if (locked == null && specific != method) {
            locked = AnnotatedElementUtils.findMergedAnnotation(method, Locked.class);
        }
        return locked == null ? Optional.empty() : Optional.of(LockedMethod.of(specific, locked, placeholders));
    }
}
