package io.locksmith.redis;

import io.locksmith.spi.LockUri;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The connection settings a Redis URI gives a Jedis connection, for tools that open connections of their own to the
 * servers a lock client would use ({@code lockctl doctor}): credentials, TLS (the trusted authorities, the host name
 * check, the client certificate) and the Sentinels' password, read exactly as the backend reads them; and the
 * backend's check of the user's ACL against what a lock client sends.
 */
public final class RedisClientSettings {

    private RedisClientSettings() {
    }

    /**
     * A Jedis configuration for a data node of {@code uri}: its user and password, and TLS as the lock client makes it
     * ({@code trustStore}, host name checked, {@code keyStore}).
     *
     * @param withCredentials false to connect as a client without a user or password (to see whether the server
     *                        lets such clients in)
     * @throws io.locksmith.LockConfigurationException if the URI is not a valid Redis URI
     */
    public static DefaultJedisClientConfig nodeConfig(LockUri uri, Duration timeout, String clientName,
                                                      boolean withCredentials) {
        RedisSettings settings = RedisSettings.parse(uri);
        DefaultJedisClientConfig.Builder builder = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis(timeout)).socketTimeoutMillis(millis(timeout)).clientName(clientName);
        JedisTransports.tls(builder, settings);
        if (withCredentials) {
            builder.user(settings.user()).password(settings.currentPassword());
        }
        return builder.build();
    }

    /**
     * A Jedis configuration for a Sentinel of {@code uri}: TLS as for the data nodes, and {@code sentinelPassword}.
     *
     * @param withPassword false to connect without {@code sentinelPassword}
     * @throws io.locksmith.LockConfigurationException if the URI is not a valid Redis URI
     */
    public static DefaultJedisClientConfig sentinelConfig(LockUri uri, Duration timeout, String clientName,
                                                          boolean withPassword) {
        RedisSettings settings = RedisSettings.parse(uri);
        DefaultJedisClientConfig.Builder builder = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis(timeout)).socketTimeoutMillis(millis(timeout)).clientName(clientName);
        JedisTransports.tls(builder, settings);
        if (withPassword && settings.sentinelPassword() != null) {
            builder.password(settings.sentinelPassword());
        }
        return builder.build();
    }

    /** Whether {@code uri} connects with TLS ({@code rediss*://}, or {@code ssl=true} on {@code redlock://}). */
    public static boolean usesTls(LockUri uri) {
        return RedisSettings.parse(uri).ssl();
    }

    /**
     * For messages: how the server's certificate is checked ({@code trustStore=FILE} or the JVM's default trust store,
     * host name included) and whether a client certificate is sent; empty without TLS.
     */
    public static Optional<String> tlsDescription(LockUri uri) {
        RedisSettings settings = RedisSettings.parse(uri);
        if (!settings.ssl()) {
            return Optional.empty();
        }
        return Optional.of("the server's certificate checked against " + settings.tls().describe()
                + ", host name included; " + settings.tls().describeClientCertificate());
    }

    /** The URI's user name; empty when it gives a password alone (the {@code default} user) or no credentials. */
    public static Optional<String> user(LockUri uri) {
        return Optional.ofNullable(RedisSettings.parse(uri).user());
    }

    /** Whether the URI gives a password for the data nodes, in the user info or with {@code passwordFile}. */
    public static boolean hasPassword(LockUri uri) {
        return RedisSettings.parse(uri).hasPassword();
    }

    /** Whether the URI gives {@code sentinelPassword}. */
    public static boolean hasSentinelPassword(LockUri uri) {
        return RedisSettings.parse(uri).sentinelPassword() != null;
    }

    /**
     * What of the lock client's commands the user of {@code jedis} may not run, checked on the server as the client
     * checks at start ({@code redis.acl_check_cmd}, Redis 7.0 and later): each refused command with its key or
     * channel, e.g. {@code PUBLISH locksmith:{x}:released}; empty if everything is allowed (or the server cannot be
     * asked). The transport and {@code waitReplicas} of {@code uri} decide what is checked, as in the client.
     *
     * @throws redis.clients.jedis.exceptions.JedisDataException if the user may not even run the check's script
     */
    public static List<String> refusedLockCommands(Jedis jedis, LockUri uri) {
        RedisSettings settings = RedisSettings.parse(uri);
        List<List<String>> own = switch (settings.transport()) {
            case JEDIS -> JedisCommands.OWN_COMMANDS;
            case REDISSON -> RedissonCommands.OWN_COMMANDS;
            case LETTUCE -> LettuceCommands.OWN_COMMANDS;
        };
        List<RedisAcl.Check> checks = RedisAcl.checks(settings.replicaAck() != null, own);
        return RedisAcl.denied(checks, refused(jedis, checks));
    }

    /**
     * What the user of {@code jedis} may run beyond a lock client's needs that lets it hurt the locks or the server
     * ({@code FLUSHALL}, {@code CONFIG SET}, keys outside {@code ~locksmith:*}, ...), by name; empty for a user limited
     * to the ACL of docs/REDIS.md, and on a server that cannot be asked (before 7.0).
     *
     * @throws redis.clients.jedis.exceptions.JedisDataException if the user may not even run the check's script
     */
    public static List<String> allowedBeyondLocks(Jedis jedis) {
        Map<String, RedisAcl.Check> beyond = RedisAcl.beyondLocks();
        List<RedisAcl.Check> checks = new ArrayList<>(beyond.values());
        List<Object> refused = refused(jedis, checks);
        List<String> allowed = new ArrayList<>();
        int i = 1;
        for (String name : beyond.keySet()) {
            long number = i++;
            if (refused.stream().noneMatch(n -> ((Number) n).longValue() == number)) {
                allowed.add(name);
            }
        }
        return allowed;
    }

    /** The names {@link #allowedBeyondLocks} answers with, all of them, for messages. */
    public static List<String> beyondLocksNames() {
        return List.copyOf(RedisAcl.beyondLocks().keySet());
    }

    /** Whether the server can be asked about a user's rights ({@code redis.acl_check_cmd}, Redis 7.0 and later). */
    public static boolean canCheckAcl(Jedis jedis) {
        Object answer = jedis.eval("return redis.acl_check_cmd ~= nil and 1 or 0", List.of(), List.of());
        return answer instanceof Number number && number.longValue() == 1;
    }

    private static List<Object> refused(Jedis jedis, List<RedisAcl.Check> checks) {
        // The backend's own script, naming no key, so that a missing key pattern cannot refuse the script itself.
        Object answer = jedis.eval(LuaScript.CHECK_ACL.text(), List.of(), RedisAcl.arguments(checks));
        return answer instanceof List<?> list ? new ArrayList<>(list) : List.of();
    }

    private static int millis(Duration duration) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, duration.toMillis()));
    }
}
