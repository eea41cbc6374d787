package io.locksmith.spring;

import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockUri;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The Locksmith URI of the Redis an application already configures for Spring Data Redis ({@code spring.data.redis.*}),
 * so that a Spring Boot application locks on the Redis it stores its data in without naming it twice: used when
 * Spring Data Redis is on the class path and {@code locksmith.uri} is not set, and compared with
 * {@code locksmith.uri} when both are set, since a lock on one server and the data it guards on another is a
 * configuration mistake nothing else would report.
 *
 * <p>Read from the {@link Environment} by property name, as Spring Boot's own {@code DataRedisProperties} binds them
 * ({@code url}, {@code host}, {@code port}, {@code database}, {@code username}, {@code password}, {@code timeout},
 * {@code connect-timeout}, {@code client-type}, {@code ssl.enabled}, {@code sentinel.*}, {@code cluster.nodes}),
 * with Boot's defaults ({@code localhost:6379}, database 0), so the starter needs no compile dependency on it.
 * The client is Lettuce, Spring Boot's default, when it is on the class path and {@code client-type} is not
 * {@code jedis} (on every deployment, Redis Cluster included); Jedis, which {@code locksmith-redis} has, otherwise.
 */
final class SpringDataRedisUri {

    /** The Spring Data Redis type whose presence means the application uses Redis through Spring. */
    static final String SPRING_DATA_REDIS = "org.springframework.data.redis.connection.RedisConnectionFactory";
    private static final String LETTUCE = "io.lettuce.core.RedisClient";
    private static final String PREFIX = "spring.data.redis.";

    private SpringDataRedisUri() {
    }

    /** Whether Spring Data Redis is on the class path. */
    static boolean present(ClassLoader classLoader) {
        return isPresent(SPRING_DATA_REDIS, classLoader);
    }

    /**
     * The URI of the application's Redis, or empty if Spring Data Redis is not on the class path.
     *
     * @throws LockConfigurationException if the configuration cannot be expressed as a Locksmith URI (an SSL bundle)
     */
    static Optional<String> from(Environment environment, ClassLoader classLoader) {
        if (!present(classLoader)) {
            return Optional.empty();
        }
        Binder binder = Binder.get(environment);
        String clientType = string(binder, "client-type").map(type -> type.toLowerCase(Locale.ROOT)).orElse("");
        boolean lettuce = !clientType.equals("jedis") && isPresent(LETTUCE, classLoader);
        if (string(binder, "ssl.bundle").isPresent()) {
            throw new LockConfigurationException("spring.data.redis.ssl.bundle is set: Locksmith cannot use an SSL bundle"
                    + " of Spring Boot's; set locksmith.uri to a rediss:// URI for the lock store (REDIS.md)");
        }
        boolean ssl = binder.bind(PREFIX + "ssl.enabled", Boolean.class).orElse(false);
        List<String> parameters = new ArrayList<>();
        binder.bind(PREFIX + "timeout", Duration.class).ifBound(timeout -> parameters.add("timeout=" + timeout.toMillis() + "ms"));
        binder.bind(PREFIX + "connect-timeout", Duration.class)
                .ifBound(timeout -> parameters.add("connectTimeout=" + timeout.toMillis() + "ms"));
        List<String> clusterNodes = list(binder, "cluster.nodes");
        String userInfo = userInfo(string(binder, "username").orElse(null), string(binder, "password").orElse(null));
        String uri;
        if (!clusterNodes.isEmpty()) {
            uri = (ssl ? "rediss-cluster://" : "redis-cluster://") + userInfo + String.join(",", clusterNodes);
            parameters.add("client=" + (lettuce ? "lettuce" : "jedis"));
        } else if (string(binder, "sentinel.master").isPresent()) {
            List<String> sentinels = list(binder, "sentinel.nodes");
            if (sentinels.isEmpty()) {
                throw new LockConfigurationException("spring.data.redis.sentinel.master is set without"
                        + " spring.data.redis.sentinel.nodes: Locksmith needs the Sentinels' addresses");
            }
            uri = (ssl ? "rediss-sentinel://" : "redis-sentinel://") + userInfo + String.join(",", sentinels) + "/"
                    + string(binder, "sentinel.master").get() + "/" + database(binder);
            string(binder, "sentinel.password").ifPresent(password -> parameters.add("sentinelPassword="
                    + encode(password)));
            parameters.add("client=" + (lettuce ? "lettuce" : "jedis"));
        } else if (string(binder, "url").isPresent()) {
            // As Spring Boot reads it: the URL's credentials, host, port and database win over the single properties.
            LockUri url = LockUri.parse(string(binder, "url").get().strip());
            if (!url.scheme().equals("redis") && !url.scheme().equals("rediss")) {
                throw new LockConfigurationException("spring.data.redis.url (" + LockUri.redact(url.raw()) + ") is not a"
                        + " redis:// or rediss:// URL");
            }
            String raw = url.raw();
            int query = raw.indexOf('?');
            uri = query < 0 ? raw : raw.substring(0, query);
            parameters.add("client=" + (lettuce ? "lettuce" : "jedis"));
        } else {
            String host = string(binder, "host").orElse("localhost");
            int port = binder.bind(PREFIX + "port", Integer.class).orElse(6379);
            uri = (ssl ? "rediss://" : "redis://") + userInfo + bracketed(host) + ":" + port + "/" + database(binder);
            parameters.add("client=" + (lettuce ? "lettuce" : "jedis"));
        }
        return Optional.of(parameters.isEmpty() ? uri : uri + "?" + String.join("&", parameters));
    }

    /** Whether any {@code spring.data.redis.*} property names a server, as opposed to Boot's defaults applying. */
    static boolean configured(Environment environment) {
        Binder binder = Binder.get(environment);
        for (String name : List.of("url", "host", "port", "database", "sentinel.master", "cluster.nodes")) {
            if (binder.bind(PREFIX + name, Bindable.of(String.class)).isBound()
                    || binder.bind(PREFIX + name, Bindable.listOf(String.class)).isBound()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Fails when {@code locksmithUri} is a Redis URI that names other servers (or another database) than
     * {@code springUri}: the locks would not be where the data they guard is.
     *
     * @throws LockConfigurationException naming both, redacted
     */
    static void requireSameServers(String locksmithUri, String springUri) {
        LockUri locks = LockUri.parse(locksmithUri.strip());
        if (!locks.scheme().startsWith("redis")) {
            return; // another store on purpose (etcd, ZooKeeper, ...): not a Redis the data could be on
        }
        LockUri data = LockUri.parse(springUri);
        String family = family(locks.scheme());
        boolean same = family.equals(family(data.scheme()))
                && (family.equals("cluster") ? overlap(locks, data) : hosts(locks).equals(hosts(data)))
                && database(locks).equals(database(data));
        if (!same) {
            throw new LockConfigurationException("locksmith.uri (" + LockUri.redact(locksmithUri) + ") and"
                    + " spring.data.redis (" + LockUri.redact(springUri) + ") name different Redis servers: locks and the"
                    + " data they guard would be on different servers. Remove locksmith.uri to lock on the application's"
                    + " Redis, make both name the same servers, or set locksmith.spring-data-redis.enabled=false to keep"
                    + " a separate lock store on purpose");
        }
    }

    private static String family(String scheme) {
        if (scheme.endsWith("-sentinel")) {
            return "sentinel";
        }
        if (scheme.endsWith("-cluster")) {
            return "cluster";
        }
        return scheme.equals("redlock") ? "redlock" : "single";
    }

    private static Set<String> hosts(LockUri uri) {
        Set<String> hosts = new TreeSet<>();
        int defaultPort = family(uri.scheme()).equals("sentinel") ? 26379 : 6379;
        for (LockUri.HostPort host : uri.hosts(defaultPort)) {
            String name = host.host().toLowerCase(Locale.ROOT);
            // The loopback under its two usual names is one server.
            hosts.add((name.equals("localhost") ? "127.0.0.1" : name) + ":" + host.port());
        }
        return hosts;
    }

    /** Cluster seed lists may name different nodes of one cluster: one node in common is the same cluster. */
    private static boolean overlap(LockUri a, LockUri b) {
        Set<String> common = hosts(a);
        common.retainAll(hosts(b));
        return !common.isEmpty();
    }

    /** The database (and for Sentinel the master group), from the path. */
    private static String database(LockUri uri) {
        String path = uri.path().replaceFirst("^/", "");
        if (family(uri.scheme()).equals("sentinel")) {
            return path.contains("/") ? path : path + "/0";
        }
        return path.isEmpty() ? "0" : path;
    }

    private static int database(Binder binder) {
        return binder.bind(PREFIX + "database", Integer.class).orElse(0);
    }

    private static Optional<String> string(Binder binder, String name) {
        return binder.bind(PREFIX + name, String.class).map(String::strip).map(Optional::of).orElse(Optional.empty())
                .filter(value -> !value.isEmpty());
    }

    private static List<String> list(Binder binder, String name) {
        return binder.bind(PREFIX + name, Bindable.listOf(String.class)).orElse(List.of()).stream()
                .map(String::strip).filter(node -> !node.isEmpty()).toList();
    }

    private static String userInfo(String user, String password) {
        if (password == null) {
            return ""; // a user name alone authenticates nobody (Redis AUTH takes a password)
        }
        return (user == null ? "" : encode(user)) + ":" + encode(password) + "@";
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String bracketed(String host) {
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    private static boolean isPresent(String className, ClassLoader classLoader) {
        try {
            Class.forName(className, false, classLoader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
