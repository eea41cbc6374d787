package io.locksmith.spring;

import java.lang.reflect.Method;

/**
 * The root object of a {@link Locked#name()} expression: {@code #root.method.name}, {@code #root.args[0]},
 * {@code #root.target}, {@code #root.targetClass.simpleName}.
 */
public final class LockedMethodRoot {

    private final Method method;
    private final Object[] args;
    private final Object target;
    private final Class<?> targetClass;

    LockedMethodRoot(Method method, Object[] args, Object target, Class<?> targetClass) {
        this.method = method;
        this.args = args;
        this.target = target;
        this.targetClass = targetClass;
    }

    /** The annotated method. */
    public Method getMethod() {
        return method;
    }

    /** The arguments of the call. */
    public Object[] getArgs() {
        return args;
    }

    /** The bean the method is called on. */
    public Object getTarget() {
        return target;
    }

    /** The class of that bean. */
    public Class<?> getTargetClass() {
        return targetClass;
    }
}
