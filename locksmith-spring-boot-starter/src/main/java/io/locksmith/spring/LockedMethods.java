package io.locksmith.spring;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/** Finds and caches the {@link Locked} annotation of a method as seen on a target class. Thread-safe. */
final class LockedMethods {

    private final Map<MethodClassKey, Optional<LockedMethod>> cache = new ConcurrentHashMap<>();
    private final UnaryOperator<String> placeholders;
    private final LockedMethod.FailureDefaults failureDefaults;

    /**
     * @param placeholders    resolves {@code ${...}} placeholders in the duration attributes
     * @param failureDefaults the failure strategy of methods that choose none
     */
    LockedMethods(UnaryOperator<String> placeholders, LockedMethod.FailureDefaults failureDefaults) {
        this.placeholders = placeholders;
        this.failureDefaults = failureDefaults;
    }

    /** Every annotated method found so far (the proxies of all singletons have been made at startup). */
    Collection<LockedMethod> found() {
        return cache.values().stream().flatMap(Optional::stream).toList();
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
        if (locked == null && targetClass != null && guardedByTypeAnnotation(specific)) {
            locked = AnnotatedElementUtils.findMergedAnnotation(targetClass, Locked.class);
        }
        return locked == null ? Optional.empty()
                : Optional.of(LockedMethod.of(specific, locked, placeholders, failureDefaults));
    }

    /** A class-level {@code @Locked} guards the public instance methods of the bean, not those of Object. */
    private static boolean guardedByTypeAnnotation(Method method) {
        int modifiers = method.getModifiers();
        return Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers) && !method.isSynthetic()
                && method.getDeclaringClass() != Object.class;
    }
}
