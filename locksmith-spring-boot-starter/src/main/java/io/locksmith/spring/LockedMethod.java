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
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.Elvis;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.NullLiteral;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Ternary;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
    /** The parameters the name refers to, by the variable it uses ({@code #sku}, {@code #p0}), in order of use. */
    private final Map<String, Integer> referencedParameters;
    /** Whether the expression itself deals with null values ({@code ?:}, {@code ?.}, a ternary, a null literal). */
    private final boolean handlesNull;
    private final Duration wait;
    private final Duration lease;
    private final Duration maxHold;
    /** How long the lock stays held at least from its acquire, or null for none. */
    private final Duration minHold;
    private final Locked.Renewal renewal;
    private final Locked.Mode mode;
    private final int maxReaders;
    private final int semaphore;
    private final int permits;
    private final FailureStrategy failureStrategy;
    private final String failureHandler;
    private final Execution execution;

    /** What a call does when its lock is not obtained, as resolved from the annotation and the configuration. */
    enum FailureStrategy { THROW, SKIP, HANDLER }

    /** How long the lock is held, by what the method returns. */
    enum Execution {
        /** Until the method returns or throws: a blocking acquire, with re-entry on the calling thread. */
        BLOCKING,
        /** Until the returned {@code CompletableFuture}/{@code CompletionStage} completes: an asynchronous acquire. */
        COMPLETION_STAGE,
        /** For the lifetime of the returned {@code Mono}, through locksmith-reactor. */
        MONO,
        /** For the lifetime of the returned {@code Flux}, through locksmith-reactor. */
        FLUX,
        /** A Kotlin suspend function: for the lifetime of the {@code Mono} Spring AOP runs it as. */
        SUSPENDING,
        /** A Kotlin suspend function returning a {@code Flow}: for the lifetime of the {@code Flux} it runs as. */
        SUSPENDING_FLOW;

        boolean isReactive() {
            return this == MONO || this == FLUX || this == SUSPENDING || this == SUSPENDING_FLOW;
        }
    }

    /**
     * The configured failure strategy of methods that choose none ({@code locksmith.annotation.on-failure} and
     * {@code locksmith.annotation.failure-handler}).
     *
     * @param onFailure the default strategy, THROW or SKIP
     * @param handler   the name of the default {@link LockFailureHandler} bean, or null
     */
    record FailureDefaults(Locked.OnFailure onFailure, String handler) {
        static final FailureDefaults THROW = new FailureDefaults(Locked.OnFailure.THROW, null);
    }

    private LockedMethod(Method method, Locked locked, UnaryOperator<String> placeholders, FailureDefaults defaults) {
        this.method = method;
        this.nameSource = locked.name();
        this.name = parseName(locked.name());
        this.referencedParameters = checkVariables(name);
        String missing = LockedNamePaths.firstMissing(((SpelExpression) name).getAST(), method, referencedParameters);
        if (missing != null) {
            // "'order:' + #order.skuu" would fail every call; a renamed property should stop the start instead.
            throw invalid("name \"" + nameSource + "\" reads " + missing, null);
        }
        this.handlesNull = handlesNull(((SpelExpression) name).getAST());
        this.wait = duration(placeholders.apply(locked.waitTime()), "waitTime", true);
        this.lease = duration(placeholders.apply(locked.leaseTime()), "leaseTime", false);
        this.maxHold = duration(placeholders.apply(locked.maxHold()), "maxHold", false);
        Duration atLeast = duration(placeholders.apply(locked.minHold()), "minHold", true);
        this.minHold = atLeast == null || atLeast.isZero() ? null : atLeast;
        this.renewal = locked.renewal();
        this.mode = locked.mode();
        this.maxReaders = locked.maxReaders();
        this.semaphore = locked.semaphore();
        this.permits = locked.permits();
        checkPrimitive();
        String handler = placeholders.apply(locked.failureHandler()).strip();
        if (!handler.isEmpty()) {
            if (locked.onFailure() != Locked.OnFailure.DEFAULT) {
                throw invalid("failureHandler = \"" + handler + "\" and onFailure = " + locked.onFailure()
                        + " are both set; choose one", null);
            }
            this.failureStrategy = FailureStrategy.HANDLER;
            this.failureHandler = handler;
        } else if (locked.onFailure() != Locked.OnFailure.DEFAULT) {
            this.failureStrategy = FailureStrategy.valueOf(locked.onFailure().name());
            this.failureHandler = null;
        } else if (defaults.handler() != null) {
            this.failureStrategy = FailureStrategy.HANDLER;
            this.failureHandler = defaults.handler();
        } else {
            this.failureStrategy = defaults.onFailure() == Locked.OnFailure.SKIP ? FailureStrategy.SKIP
                    : FailureStrategy.THROW;
            this.failureHandler = null;
        }
        if (lease != null && maxHold != null && maxHold.compareTo(lease) < 0) {
            throw invalid("maxHold (" + maxHold + ") must not be shorter than leaseTime (" + lease + ")", null);
        }
        this.execution = AsyncReturnTypes.executionOf(method, this::invalid);
        checkSkippable();
        checkMinHold();
    }

    /**
     * Reads and checks the annotation of {@code method}; {@code placeholders} resolves {@code ${...}} in durations.
     *
     * @throws LockConfigurationException naming the method, if the annotation cannot work
     */
    static LockedMethod of(Method method, Locked locked, UnaryOperator<String> placeholders, FailureDefaults defaults) {
        return new LockedMethod(method, locked, placeholders, defaults);
    }

    Method method() {
        return method;
    }

    /** The wait the annotation sets, or empty for the configured default. */
    Optional<Duration> waitTime() {
        return Optional.ofNullable(wait);
    }

    FailureStrategy failureStrategy() {
        return failureStrategy;
    }

    /** How long the lock is held: until the method returns, or until the asynchronous result it returns ends. */
    Execution execution() {
        return execution;
    }

    /** The {@link LockFailureHandler} bean name under {@link FailureStrategy#HANDLER}, else null. */
    String failureHandler() {
        return failureHandler;
    }

    /** {@code OrderService.ship(..)}, for log lines. */
    String shortName() {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName()
                + (method.getParameterCount() == 0 ? "()" : "(..)");
    }

    private void checkPrimitive() {
        int limit = io.locksmith.DistributedSemaphore.MAX_PERMITS;
        if (semaphore != 0 && mode != Locked.Mode.EXCLUSIVE) {
            throw invalid("semaphore = " + semaphore + " and mode = " + mode + " are both set; a name is either a"
                    + " semaphore or a read-write lock", null);
        }
        if (semaphore < 0 || semaphore > limit) {
            throw invalid("semaphore must be between 1 and " + limit + " permits (or 0 for none), was " + semaphore,
                    null);
        }
        if (semaphore == 0 && permits != 1) {
            throw invalid("permits = " + permits + " needs semaphore = N, the size of the semaphore to take them of",
                    null);
        }
        if (semaphore > 0 && (permits < 1 || permits > semaphore)) {
            throw invalid("permits must be between 1 and the semaphore's " + semaphore + ", was " + permits, null);
        }
        boolean readWrite = mode == Locked.Mode.READ || mode == Locked.Mode.WRITE;
        if (maxReaders != io.locksmith.DistributedReadWriteLock.DEFAULT_MAX_READERS
                && (!readWrite || maxReaders < 1 || maxReaders > limit)) {
            throw invalid(readWrite ? "maxReaders must be between 1 and " + limit + ", was " + maxReaders
                    : "maxReaders = " + maxReaders + " needs mode = READ or WRITE", null);
        }
    }

    private void checkMinHold() {
        if (minHold == null) {
            return;
        }
        if (minHold.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            throw invalid("minHold must be at most " + LockOptions.MAX_LEASE_TIME + ", was " + minHold, null);
        }
        if (maxHold != null && minHold.compareTo(maxHold) > 0) {
            throw invalid("minHold (" + minHold + ") must not be longer than maxHold (" + maxHold + ")", null);
        }
        if (lease != null && renewal == Locked.Renewal.FIXED && minHold.compareTo(lease) > 0) {
            throw invalid("minHold (" + minHold + ") must not be longer than the fixed leaseTime (" + lease + ")",
                    null);
        }
        if (!isMutex()) {
            // Read, write and permit leases cannot keep their store locks past their close (Lease.closeAfter).
            throw invalid("minHold needs a mutex; a " + (semaphore > 0 ? "semaphore's permits" : mode + " lock")
                    + " cannot be kept after the call", null);
        }
        if (execution != Execution.BLOCKING) {
            throw invalid("minHold is not supported on a method returning " + method.getReturnType().getSimpleName()
                    + " (an asynchronous result); use it on a method that does its work before it returns", null);
        }
    }

    /**
     * How long the lock stays held at least from its acquire ({@link Locked#minHold()}), or empty for none: then the
     * lease is closed with {@link io.locksmith.Lease#closeAfter} for what is left of it.
     */
    Optional<Duration> minHold() {
        return Optional.ofNullable(minHold);
    }

    /** Whether the lock is a re-entrant mutex (the default mode), rather than a read, write or permit lease. */
    boolean isMutex() {
        return mode == Locked.Mode.EXCLUSIVE && semaphore == 0;
    }

    /**
     * What one call takes: the mutex of {@code name}, the read or write lock of its read-write lock, or permits of
     * its semaphore, with this annotation's options over the client's defaults.
     */
    io.locksmith.DistributedLock target(io.locksmith.LockClient client, String name) {
        if (isMutex()) {
            return overridesOptions() ? client.lock(name, options(client.lock(name).options())) : client.lock(name);
        }
        LockOptions options = options(client.lock(name).options());
        if (semaphore > 0) {
            return client.semaphore(name, semaphore, options).asLock(permits);
        }
        io.locksmith.DistributedReadWriteLock lock = client.readWriteLock(name, options, maxReaders);
        return mode == Locked.Mode.READ ? lock.readLock() : lock.writeLock();
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
        if (!handlesNull) {
            // "'stock:' + #sku" with a null sku would lock "stock:null", serialising every caller on one lock.
            for (Map.Entry<String, Integer> parameter : referencedParameters.entrySet()) {
                if (args[parameter.getValue()] == null) {
                    throw invalid("name \"" + nameSource + "\" uses #" + parameter.getKey() + ", which is null in this"
                            + " call; a lock name must not contain null (pass a value, or say what null means in the"
                            + " expression: #" + parameter.getKey() + " ?: 'none')", null);
                }
            }
        }
        LockedMethodRoot root = new LockedMethodRoot(method, args, target, targetClass);
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, args, PARAMETER_NAMES);
        if (beans != null) {
            context.setBeanResolver(beans);
        }
        Object value;
        try {
            if (!handlesNull) {
                // "'order:' + #order.id" with a null id would lock "order:null" too: a null part of a concatenation,
                // from a property or a method as well as a parameter, fails the call instead.
                checkConcatenatedParts(((SpelExpression) name).getAST(),
                        new org.springframework.expression.spel.ExpressionState(context));
            }
            value = name.getValue(context);
        } catch (EvaluationException e) {
            NullPart nullPart = nullPartOf(e, context);
            if (nullPart != null) {
                throw invalid("name \"" + nameSource + "\": " + nullPart.part() + " is null in this call, so its "
                        + nullPart.next() + " cannot be read; a lock name must not contain null (pass a value, or say"
                        + " what null means in the expression: " + nullPart.part() + "?." + nullPart.next()
                        + " ?: 'none')", null); // the message says it all; SpEL's trace would only repeat it
            }
            throw invalid("name \"" + nameSource + "\" could not be evaluated: " + e.getMessage()
                    + hintForParameterNames(), e);
        }
        if (value == null || value.toString().isBlank()) {
            throw invalid("name \"" + nameSource + "\" gave " + (value == null ? "null" : "a blank name")
                    + hintForParameterNames(), null);
        }
        return value.toString();
    }

    /** What a skipped call returns (for asynchronous methods: what their result completes with). */
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

    private void checkSkippable() {
        if (failureStrategy != FailureStrategy.SKIP) {
            return;
        }
        Class<?> type = method.getReturnType();
        if (type.isPrimitive() && type != void.class) {
            throw invalid("the failure strategy SKIP (onFailure, or locksmith.annotation.on-failure) needs a void,"
                    + " Optional or object return type, not " + type
                    + " (a skipped call has no value to return)", null);
        }
        if (execution == Execution.SUSPENDING) {
            String declared = kotlinReturnTypeIfNotNullable(method);
            if (declared != null) {
                // A skipped suspend call returns null, which Kotlin does not check at the proxy: the caller would
                // hold a null String and fail later, far from the lock.
                throw invalid("the failure strategy SKIP (onFailure, or locksmith.annotation.on-failure) returns null"
                        + " from a skipped suspend function, and its return type " + declared + " is not nullable:"
                        + " declare it " + declared + "? (or Unit), or choose THROW or a failureHandler", null);
            }
        }
    }

    /**
     * The declared Kotlin return type of {@code method} if Kotlin's reflection is present and says it can be neither
     * null nor {@code Unit}; null otherwise (nullable, {@code Unit}, or not known). Read by reflection: Kotlin is
     * optional for the starter.
     */
    private static String kotlinReturnTypeIfNotNullable(Method method) {
        try {
            Class<?> mapping = Class.forName("kotlin.reflect.jvm.ReflectJvmMapping", false, method.getDeclaringClass()
                    .getClassLoader());
            Object function = mapping.getMethod("getKotlinFunction", Method.class).invoke(null, method);
            if (function == null) {
                return null;
            }
            Class<?> callable = Class.forName("kotlin.reflect.KCallable", false, mapping.getClassLoader());
            Object returnType = callable.getMethod("getReturnType").invoke(function);
            Class<?> kType = Class.forName("kotlin.reflect.KType", false, mapping.getClassLoader());
            boolean nullable = (Boolean) kType.getMethod("isMarkedNullable").invoke(returnType);
            String declared = String.valueOf(returnType);
            return nullable || declared.equals("kotlin.Unit") ? null : declared;
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            return null; // no kotlin-reflect, or not a Kotlin function: nothing to check
        }
    }

    /**
     * Checks that every {@code #variable} of the name is a parameter of the method, so that a typo or a renamed
     * parameter fails the startup instead of locking "prefix:null" on every call.
     *
     * @return the parameters the name refers to, by variable name
     */
    private Map<String, Integer> checkVariables(Expression expression) {
        String[] names = PARAMETER_NAMES.getParameterNames(method);
        Map<String, Integer> known = new LinkedHashMap<>();
        for (int i = 0; i < method.getParameterCount(); i++) {
            // A Kotlin suspend function's names (from Kotlin reflection) leave out its last, Continuation, parameter.
            if (names != null && i < names.length) {
                known.put(names[i], i);
            }
            known.put("p" + i, i);
            known.put("a" + i, i);
        }
        List<String> used = new ArrayList<>();
        collectVariables(((SpelExpression) expression).getAST(), used);
        Map<String, Integer> referenced = new LinkedHashMap<>();
        for (String variable : used) {
            if (variable.equals("root") || variable.equals("this")) {
                continue;
            }
            Integer index = known.get(variable);
            if (index == null) {
                throw invalid("name \"" + nameSource + "\" refers to #" + variable + ", which is not a parameter of the"
                        + " method; " + describeParameters(names), null);
            }
            referenced.put(variable, index);
        }
        return referenced;
    }

    private String describeParameters(String[] names) {
        if (method.getParameterCount() == 0) {
            return "the method has no parameters (use literal text, #root.method.name or a bean: @bean.method())";
        }
        List<String> described = new ArrayList<>();
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            described.add((names != null && i < names.length ? "#" + names[i] + " or " : "") + "#p" + i + " ("
                    + types[i].getSimpleName() + ")");
        }
        return "its parameters are " + String.join(", ", described)
                + (names == null ? "; parameter names are not compiled in, so only #p0, #p1, ... work (compile with"
                + " -parameters to use names: Spring Boot's parent POM does, or <parameters>true</parameters> in"
                + " maven-compiler-plugin)" : "");
    }

    private static void collectVariables(SpelNode node, List<String> into) {
        if (node instanceof VariableReference) {
            into.add(node.toStringAST().substring(1));
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collectVariables(node.getChild(i), into);
        }
    }

    /**
     * Evaluates each part of every concatenation ({@code +}) in the name that is not literal text: a null part fails the
     * call, naming it. Each such part is evaluated once more than the name itself: a name should not call methods with
     * side effects.
     */
    private void checkConcatenatedParts(SpelNode node, org.springframework.expression.spel.ExpressionState state) {
        if (node instanceof org.springframework.expression.spel.ast.OpPlus) {
            for (int i = 0; i < node.getChildCount(); i++) {
                SpelNode part = node.getChild(i);
                if (part instanceof org.springframework.expression.spel.ast.OpPlus
                        || part instanceof org.springframework.expression.spel.ast.Literal) {
                    continue;
                }
                if (part.getValue(state) == null) {
                    throw invalid("name \"" + nameSource + "\": its part " + part.toStringAST() + " is null in this"
                            + " call; a lock name must not contain null (pass a value, or say what null means in the"
                            + " expression: " + part.toStringAST() + " ?: 'none')", null);
                }
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            checkConcatenatedParts(node.getChild(i), state);
        }
    }

    /**
     * The part of the name that was null when {@code failure} read a property of it or called a method on it
     * ({@code #order.customer} of {@code #order.customer.id}), or null if the failure is another one. Found by
     * evaluating the paths of the name step by step (SpEL does not say which part was null); like the check of
     * concatenated parts, this evaluates parts once more, and only for a call that already failed.
     */
    private NullPart nullPartOf(EvaluationException failure, org.springframework.expression.EvaluationContext context) {
        if (!(failure instanceof org.springframework.expression.spel.SpelEvaluationException spel)
                || (spel.getMessageCode() != org.springframework.expression.spel.SpelMessage.PROPERTY_OR_FIELD_NOT_READABLE_ON_NULL
                && spel.getMessageCode() != org.springframework.expression.spel.SpelMessage.METHOD_CALL_ON_NULL_OBJECT_NOT_ALLOWED)) {
            return null;
        }
        return nullPartIn(((SpelExpression) name).getAST(), context);
    }

    /** A part of the name that was null ({@code #order.customer}) and what was read of it ({@code id}). */
    private record NullPart(String part, String next) {
    }

    private NullPart nullPartIn(SpelNode node, org.springframework.expression.EvaluationContext context) {
        if (node instanceof org.springframework.expression.spel.ast.CompoundExpression) {
            for (int i = 1; i < node.getChildCount(); i++) {
                SpelNode next = node.getChild(i);
                if (next instanceof org.springframework.expression.spel.ast.SpelNodeImpl step && step.isNullSafe()) {
                    continue;
                }
                String part = nameSource.substring(node.getStartPosition(), node.getChild(i - 1).getEndPosition())
                        .strip();
                try {
                    if (PARSER.parseExpression(part).getValue(context) == null) {
                        return new NullPart(part, next.toStringAST());
                    }
                } catch (ParseException | EvaluationException e) {
                    break; // a step that cannot be evaluated on its own (or fails itself): look elsewhere
                }
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            NullPart part = nullPartIn(node.getChild(i), context);
            if (part != null) {
                return part;
            }
        }
        return null;
    }

    private static boolean handlesNull(SpelNode node) {
        if (node instanceof Elvis || node instanceof Ternary || node instanceof NullLiteral
                || (node instanceof PropertyOrFieldReference property && property.isNullSafe())
                || (node instanceof MethodReference call && call.isNullSafe())) {
            return true;
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            if (handlesNull(node.getChild(i))) {
                return true;
            }
        }
        return false;
    }

    private String hintForParameterNames() {
        return method.getParameterCount() > 0 && !method.getParameters()[0].isNamePresent()
                ? " (parameter names are not compiled in: compile with -parameters, or use #p0, #p1, ...)"
                : "";
    }

    LockConfigurationException invalid(String problem, Throwable cause) {
        return new LockConfigurationException("@Locked on " + method.getDeclaringClass().getName() + "."
                + method.getName() + ": " + problem, cause);
    }

    @Override
    public String toString() {
        return "@Locked(" + nameSource + (mode != Locked.Mode.EXCLUSIVE ? ", " + mode : "")
                + (semaphore > 0 ? ", " + permits + " of " + semaphore + " permits" : "") + ") " + method;
    }
}
