package io.locksmith.redis;

import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;
import io.locksmith.redis.RedisCommands.ReplicaAck;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Redis lock stores by URI (grammar in {@code docs/REDIS.md}):
 * <ul>
 * <li>{@code redis://[[user]:password@]host[:6379][/database]}, {@code rediss://...} with TLS: one node;</li>
 * <li>{@code redis-sentinel://s1:26379,s2:26379/mymaster[/database]} (and {@code rediss-sentinel}): the
 *     primary a Sentinel group monitors, followed across failovers;</li>
 * <li>{@code redlock://h1:6379,h2:6379,h3:6379[/database]}: RedLock over independent primaries.</li>
 * </ul>
 * Parameters: {@code client=jedis|redisson} (default jedis), {@code timeout} (connect and command time-out,
 * default 2s), {@code poolSize} (default 8), {@code waitReplicas} and {@code waitTimeout} (replica
 * acknowledgement of acquire and renew), {@code sentinelPassword}, and {@code ssl} for RedLock.
 * To use a {@code RedissonClient} the application already has, see {@link RedissonLocks}.
 *
 * <p>Creating a provider pings the store, so an unreachable server fails at once with a
 * {@link LockStoreException} naming it.
 */
public final class RedisLockProviderFactory implements LockProviderFactory {

    @Override
    public Set<String> schemes() {
        return Set.of("redis", "rediss", "redis-sentinel", "rediss-sentinel", "redlock");
    }

    @Override
    public LockProvider create(LockUri uri, ProviderContext context) {
        RedisSettings settings = RedisSettings.parse(uri);
        if (settings.transport() == RedisSettings.Transport.REDISSON) {
            requireRedisson(uri);
        }
        String description = settings.describe();
        return switch (settings.deployment()) {
            case SINGLE -> single(open(settings, settings.hosts().get(0), description), settings.replicaAck(), description);
            case SENTINEL -> single(settings.transport() == RedisSettings.Transport.JEDIS
                    ? JedisTransports.sentinel(settings, description)
                    : RedissonTransports.sentinel(settings, description), settings.replicaAck(), description);
            case REDLOCK -> redlock(settings, description);
        };
    }

    private static RedisCommands open(RedisSettings settings, LockUri.HostPort host, String description) {
        return settings.transport() == RedisSettings.Transport.JEDIS
                ? JedisTransports.node(settings, host, description)
                : RedissonTransports.node(settings, host, description);
    }

    /** A provider on one primary, pinged before it is handed out. */
    static LockProvider single(RedisCommands commands, ReplicaAck ack, String description) {
        LockNode node = new LockNode(commands, ack);
        pingOrClose(List.of(node));
        return new RedisLockProvider(node, description);
    }

    private static LockProvider redlock(RedisSettings settings, String description) {
        List<LockNode> nodes = new ArrayList<>();
        try {
            for (LockUri.HostPort host : settings.hosts()) {
                nodes.add(new LockNode(open(settings, host, settings.describeNode(host)), settings.replicaAck()));
            }
        } catch (RuntimeException e) {
            closeAll(nodes, e);
            throw e;
        }
        return redlock(nodes, description);
    }

    /**
     * A RedLock provider over {@code nodes}. Every node must answer at creation: starting with a node down
     * would hide a misconfiguration (a wrong port) until a second node fails.
     */
    static LockProvider redlock(List<LockNode> nodes, String description) {
        pingOrClose(nodes);
        return new RedLockProvider(nodes, description);
    }

    private static void pingOrClose(List<LockNode> nodes) {
        try {
            for (LockNode node : nodes) {
                node.ping();
            }
        } catch (RuntimeException e) {
            closeAll(nodes, e);
            throw e;
        }
    }

    private static void closeAll(List<LockNode> nodes, RuntimeException failure) {
        for (LockNode node : nodes) {
            try {
                node.close();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
    }

    private static void requireRedisson(LockUri uri) {
        try {
            Class.forName("org.redisson.api.RedissonClient", false, RedisLockProviderFactory.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new LockConfigurationException("'" + uri + "' asks for client=redisson, but Redisson is not on the"
                    + " class path; add org.redisson:redisson (3.52) or use the default client=jedis");
        }
    }
}
