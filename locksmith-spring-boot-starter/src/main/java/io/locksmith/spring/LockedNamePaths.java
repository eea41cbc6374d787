package io.locksmith.spring;

import org.springframework.beans.BeanUtils;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

import java.beans.PropertyDescriptor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Checks, at startup, the property paths of a {@link Locked} name on parameters whose declared type is known:
 * {@code #order.skuu} on {@code ship(Order order)} names a property {@code Order} does not have. The paths are
 * followed as SpEL's reflective accessor reads them (a getter {@code getX()}/{@code isX()}, a record-style accessor
 * {@code x()}, a public field, a public method for a call), from the declared parameter type, as long as the type is
 * known: a path stops being checked at a type whose properties only the runtime value can tell ({@code Object}, an
 * interface, a type variable, an array, a {@code Map}, {@code Optional}, {@code Class}), and at anything but a
 * property or a method call (an indexer, a projection). A property only a subclass has needs the parameter declared
 * as that subclass.
 */
final class LockedNamePaths {

    private LockedNamePaths() {
    }

    /**
     * Finds the first property or method on a known type that does not exist.
     *
     * @param ast        the parsed name
     * @param method     the {@code @Locked} method
     * @param parameters the parameters the name refers to, by variable name
     * @return the problem, naming the path and the missing member, or null if every checked path exists
     */
    static String firstMissing(SpelNode ast, Method method, Map<String, Integer> parameters) {
        if (ast instanceof CompoundExpression && ast.getChildCount() > 1
                && ast.getChild(0) instanceof VariableReference variable) {
            String problem = missingIn(ast, variable, method, parameters);
            if (problem != null) {
                return problem;
            }
        }
        for (int i = 0; i < ast.getChildCount(); i++) {
            String problem = firstMissing(ast.getChild(i), method, parameters);
            if (problem != null) {
                return problem;
            }
        }
        return null;
    }

    private static String missingIn(SpelNode path, VariableReference variable, Method method,
                                    Map<String, Integer> parameters) {
        String name = variable.toStringAST();
        Integer index = parameters.get(name.substring(1));
        if (index == null) {
            return null; // #root, #this
        }
        Type type = method.getGenericParameterTypes().length == method.getParameterCount()
                ? method.getGenericParameterTypes()[index] : method.getParameterTypes()[index];
        StringBuilder walked = new StringBuilder(name);
        for (int i = 1; i < path.getChildCount(); i++) {
            Class<?> known = knownType(type);
            if (known == null) {
                return null;
            }
            SpelNode step = path.getChild(i);
            if (step instanceof PropertyOrFieldReference property) {
                Type next = property(known, property.getName());
                if (next == null) {
                    return walked + "." + property.getName() + ": " + known.getName() + " (the type of " + walked
                            + ") has no property '" + property.getName() + "' (no get"
                            + StringUtils.capitalize(property.getName()) + "(), is"
                            + StringUtils.capitalize(property.getName()) + "() or " + property.getName()
                            + "() method and no public field of that name); its properties are "
                            + describeProperties(known);
                }
                type = next;
                walked.append('.').append(property.getName());
            } else if (step instanceof MethodReference call) {
                List<Method> candidates = methods(known, call.getName(), call.getChildCount());
                if (candidates.isEmpty()) {
                    return walked + "." + call.toStringAST() + ": " + known.getName() + " (the type of " + walked
                            + ") has no public method " + call.getName() + " taking " + call.getChildCount()
                            + " argument" + (call.getChildCount() == 1 ? "" : "s");
                }
                type = candidates.size() == 1 ? candidates.get(0).getGenericReturnType() : null;
                walked.append('.').append(call.toStringAST());
            } else {
                return null;
            }
        }
        return null;
    }

    /** The class whose members a path step can be checked against, or null if only the runtime value knows. */
    private static Class<?> knownType(Type type) {
        if (type == null || type instanceof TypeVariable<?>) {
            return null;
        }
        Class<?> raw = org.springframework.core.ResolvableType.forType(type).resolve();
        if (raw == null) {
            return null;
        }
        raw = ClassUtils.resolvePrimitiveIfNecessary(raw);
        // A Map class too: an accessor for its keys as properties would make any name valid.
        if (raw == Object.class || raw.isInterface() || raw.isArray() || raw == Optional.class || raw == Class.class
                || raw == void.class || raw == Void.class || Map.class.isAssignableFrom(raw)) {
            return null;
        }
        return raw;
    }

    /** The type of property {@code name} of {@code type} as SpEL's reflective accessor reads it, or null if none. */
    private static Type property(Class<?> type, String name) {
        String suffix = StringUtils.capitalize(name);
        for (String getter : List.of("get" + suffix, "is" + suffix, name)) {
            Method found = ClassUtils.getMethodIfAvailable(type, getter);
            if (found != null && Modifier.isPublic(found.getModifiers()) && found.getReturnType() != void.class) {
                return found.getGenericReturnType();
            }
        }
        PropertyDescriptor descriptor = BeanUtils.getPropertyDescriptor(type, name);
        if (descriptor != null && descriptor.getReadMethod() != null) {
            return descriptor.getReadMethod().getGenericReturnType();
        }
        for (Field field : type.getFields()) {
            if (field.getName().equals(name)) {
                return field.getGenericType();
            }
        }
        return null;
    }

    private static List<Method> methods(Class<?> type, String name, int arguments) {
        List<Method> found = new ArrayList<>();
        for (Method candidate : type.getMethods()) {
            if (candidate.getName().equals(name) && (candidate.getParameterCount() == arguments
                    || (candidate.isVarArgs() && arguments >= candidate.getParameterCount() - 1))) {
                found.add(candidate);
            }
        }
        return found;
    }

    private static String describeProperties(Class<?> type) {
        TreeSet<String> names = new TreeSet<>();
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (descriptor.getReadMethod() != null && !descriptor.getName().equals("class")) {
                names.add(descriptor.getName());
            }
        }
        if (type.isRecord()) {
            Arrays.stream(type.getRecordComponents()).forEach(component -> names.add(component.getName()));
        }
        Arrays.stream(type.getFields()).filter(field -> !Modifier.isStatic(field.getModifiers()))
                .forEach(field -> names.add(field.getName()));
        return names.isEmpty() ? "none" : String.join(", ", names);
    }
}
