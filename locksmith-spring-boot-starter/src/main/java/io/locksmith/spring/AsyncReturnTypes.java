package io.locksmith.spring;

import io.locksmith.LockConfigurationException;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;

/**
 * Which return types a {@link Locked} method may have: the ones whose asynchronous work the lock can be held for,
 * and any other type that is not asynchronous. Reactor and Kotlin are optional: they are looked for by class name, so
 * the starter works without them.
 */
final class AsyncReturnTypes {

    private static final ClassLoader LOADER = AsyncReturnTypes.class.getClassLoader();
    /** locksmith-reactor (and so Reactor): Mono, Flux and suspend functions are held through it. */
    static final boolean REACTOR_ADAPTER_PRESENT = ClassUtils.isPresent("io.locksmith.reactor.ReactiveLocks", LOADER)
            && ClassUtils.isPresent("reactor.core.publisher.Mono", LOADER);
    /** What Spring AOP needs to intercept a suspend function as a Mono (the same check as its proxies make). */
    static final boolean COROUTINES_REACTOR_PRESENT = ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt",
            LOADER) && ClassUtils.isPresent("kotlin.reflect.full.KClasses", LOADER);

    private static final String MONO = "reactor.core.publisher.Mono";
    private static final String FLUX = "reactor.core.publisher.Flux";
    private static final String FLOW = "kotlinx.coroutines.flow.Flow";
    private static final String SUPPORTED = "@Locked holds the lock until the asynchronous work ends for methods"
            + " returning CompletableFuture, CompletionStage, Mono or Flux, and for Kotlin suspend functions";

    /**
     * Types whose values stand for work that goes on after the method returned, by the name of the type that makes
     * them so, looked for among every supertype (a Mono is a Publisher through CorePublisher, a ParallelFlux through
     * CorePublisher too, a Deferred is a Job, an RxJava Single a SingleSource).
     */
    private static final Set<String> ASYNCHRONOUS = Set.of(
            "java.util.concurrent.Future",
            "java.util.concurrent.CompletionStage",
            "java.util.concurrent.Flow$Publisher",
            "org.reactivestreams.Publisher",
            FLOW,
            "kotlinx.coroutines.Job",
            "io.reactivex.rxjava3.core.ObservableSource",
            "io.reactivex.rxjava3.core.SingleSource",
            "io.reactivex.rxjava3.core.MaybeSource",
            "io.reactivex.rxjava3.core.CompletableSource",
            "io.reactivex.ObservableSource",
            "io.reactivex.SingleSource",
            "io.reactivex.MaybeSource",
            "io.reactivex.CompletableSource",
            "io.smallrye.mutiny.Uni");

    private AsyncReturnTypes() {
    }

    /**
     * How long a call of {@code method} holds its lock.
     *
     * @param invalid makes the exception that names the method
     * @throws LockConfigurationException if the method returns an asynchronous type the lock cannot be held for, or
     *                                    needs a library that is not on the class path
     */
    static LockedMethod.Execution executionOf(Method method,
                                              BiFunction<String, Throwable, LockConfigurationException> invalid) {
        if (KotlinDetector.isSuspendingFunction(method)) {
            if (!COROUTINES_REACTOR_PRESENT || !REACTOR_ADAPTER_PRESENT) {
                throw invalid.apply("is a Kotlin suspend function: Spring AOP runs those as a Mono only with"
                        + " org.jetbrains.kotlinx:kotlinx-coroutines-reactor and org.jetbrains.kotlin:kotlin-reflect on"
                        + " the class path, and the lock is held for that Mono through io.locksmith:locksmith-reactor;"
                        + " add " + missing(), null);
            }
            return FLOW.equals(new MethodParameter(method, -1).getParameterType().getName())
                    ? LockedMethod.Execution.SUSPENDING_FLOW : LockedMethod.Execution.SUSPENDING;
        }
        Class<?> type = method.getReturnType();
        if (type == CompletableFuture.class || type == CompletionStage.class) {
            return LockedMethod.Execution.COMPLETION_STAGE;
        }
        if (type.getName().equals(MONO) || type.getName().equals(FLUX)) {
            if (!REACTOR_ADAPTER_PRESENT) {
                throw invalid.apply("returns " + type.getSimpleName() + ": holding the lock for its lifetime needs"
                        + " io.locksmith:locksmith-reactor on the class path", null);
            }
            return type.getName().equals(MONO) ? LockedMethod.Execution.MONO : LockedMethod.Execution.FLUX;
        }
        Optional<String> asynchronous = asynchronousSupertype(type);
        if (asynchronous.isPresent()) {
            throw invalid.apply("returns " + type.getName() + ", an asynchronous type ("
                    + (asynchronous.get().equals(type.getName()) ? "" : "a " + asynchronous.get() + ", ") + "its work"
                    + " goes on after the method returns), for which the lock would be released too early. "
                    + SUPPORTED + "; return one of those, or take the lock inside the asynchronous work", null);
        }
        return LockedMethod.Execution.BLOCKING;
    }

    /** The asynchronous type that {@code type} is or extends, looking at every superclass and interface. */
    static Optional<String> asynchronousSupertype(Class<?> type) {
        Deque<Class<?>> pending = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        pending.add(type);
        while (!pending.isEmpty()) {
            Class<?> candidate = pending.poll();
            if (!seen.add(candidate)) {
                continue;
            }
            if (ASYNCHRONOUS.contains(candidate.getName())) {
                return Optional.of(candidate.getName());
            }
            if (candidate.getSuperclass() != null) {
                pending.add(candidate.getSuperclass());
            }
            pending.addAll(java.util.List.of(candidate.getInterfaces()));
        }
        // Types Spring knows how to adapt (registered by the libraries on the class path).
        if (type != void.class && !type.isPrimitive()
                && ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null) {
            return Optional.of(type.getName());
        }
        return Optional.empty();
    }

    private static String missing() {
        StringBuilder missing = new StringBuilder();
        if (!ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", LOADER)) {
            missing.append("kotlinx-coroutines-reactor");
        }
        if (!ClassUtils.isPresent("kotlin.reflect.full.KClasses", LOADER)) {
            missing.append(missing.isEmpty() ? "" : ", ").append("kotlin-reflect");
        }
        if (!REACTOR_ADAPTER_PRESENT) {
            missing.append(missing.isEmpty() ? "" : ", ").append("locksmith-reactor");
        }
        return missing.toString();
    }
}
