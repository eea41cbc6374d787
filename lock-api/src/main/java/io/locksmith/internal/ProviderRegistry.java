package io.locksmith.internal;

import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockProviderFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;

/** Finds {@link LockProviderFactory}s with {@link ServiceLoader}, by scheme. */
public final class ProviderRegistry {

    private ProviderRegistry() {
    }

    public static LockProviderFactory forScheme(String scheme, String uriForMessages) {
        Set<String> available = new TreeSet<>();
        for (LockProviderFactory factory : factories()) {
            if (factory.schemes().contains(scheme)) {
                return factory;
            }
            available.addAll(factory.schemes());
        }
        String artifact = artifactFor(scheme);
        if (scheme.equals("redisson") && available.contains("redis")) {
            // locksmith-redis is there: redisson:// is not looked up by scheme, it wraps the caller's own client.
            throw new LockConfigurationException("'" + uriForMessages + "': redisson:// uses a RedissonClient you"
                    + " already have, so it needs its factory: ProviderClientBuilder.create().uri(\"redisson://\")"
                    + ".factory(RedissonLocks.factory(redissonClient)).build(); to let Locksmith open Redisson itself,"
                    + " write redis://host:6379?client=redisson");
        }
        boolean artifactPresent = artifact != null && available.stream().anyMatch(s -> artifact.equals(artifactFor(s)));
        throw new LockConfigurationException("unknown lock store scheme '" + scheme + "' in '" + uriForMessages
                + "'; available schemes on the classpath: " + available
                + (artifact != null && !artifactPresent
                        ? " (scheme '" + scheme + "' is provided by io.locksmith:" + artifact + ": add it to the class path)"
                        : artifact == null ? " (a custom store needs its backend jar on the class path)" : ""));
    }

    /** The Locksmith artifact that provides a scheme, so the error names the dependency to add. */
    static String artifactFor(String scheme) {
        return switch (scheme) {
            case "redis", "rediss", "redis-sentinel", "rediss-sentinel", "redlock", "redisson" -> "locksmith-redis";
            case "zookeeper" -> "locksmith-zookeeper";
            case "etcd", "etcds" -> "locksmith-etcd";
            case "postgres", "postgresql" -> "locksmith-postgres";
            default -> null;
        };
    }

    static List<LockProviderFactory> factories() {
        List<LockProviderFactory> result = new ArrayList<>();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        ServiceLoader<LockProviderFactory> serviceLoader = ServiceLoader.load(LockProviderFactory.class,
                loader != null ? loader : ProviderRegistry.class.getClassLoader());
        var iterator = serviceLoader.iterator();
        while (true) {
            try {
                if (!iterator.hasNext()) {
                    break;
                }
                result.add(iterator.next());
            } catch (ServiceConfigurationError e) {
                // A broken backend jar must not hide the others; say which one is broken.
                throw new LockConfigurationException("a lock store backend on the classpath cannot be loaded: "
                        + e.getMessage(), e);
            }
        }
        return result;
    }
}
