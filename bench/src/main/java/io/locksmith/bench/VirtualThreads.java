package io.locksmith.bench;

import java.util.Optional;
import java.util.concurrent.ThreadFactory;

/**
 * Virtual threads where the running JVM has them (Java 21 and later), found by reflection: the bench is compiled
 * for Java 17, which has no {@code Thread.ofVirtual()}, and runs unchanged on a newer JVM
 * ({@code /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar bench/target/locksmith-bench.jar ...}).
 */
final class VirtualThreads {

    private static final ThreadFactory FACTORY = find();

    private VirtualThreads() {
    }

    /** A factory of virtual threads named {@code bench-virtual-N}, or empty on a JVM without them (Java 17 to 20). */
    static Optional<ThreadFactory> factory() {
        return Optional.ofNullable(FACTORY);
    }

    /** Why there are no virtual threads here, for the report. */
    static String unavailableReason() {
        return "virtual threads need Java 21 or later; this JVM is " + System.getProperty("java.version");
    }

    private static ThreadFactory find() {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            Object named = builderType.getMethod("name", String.class, long.class).invoke(builder, "bench-virtual-", 0L);
            return (ThreadFactory) builderType.getMethod("factory").invoke(named);
        } catch (NoSuchMethodException | ClassNotFoundException e) {
            return null; // Java 17 and 18
        } catch (java.lang.reflect.InvocationTargetException e) {
            return null; // Java 19 and 20 without --enable-preview: ofVirtual() throws
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Thread.ofVirtual() exists but could not be used", e);
        }
    }
}
