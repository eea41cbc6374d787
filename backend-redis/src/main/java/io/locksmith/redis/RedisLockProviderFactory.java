package io.locksmith.redis;

import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;
import io.locksmith.redis.RedisCommands.ReplicaAck;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Redis lock stores by URI (grammar in {@code docs/REDIS.md}):
 * <ul>
 * <li>{@code redis://[[user]:password@]host[:6379][/database]}, {@code rediss://...} with TLS: one node;</li>
 * <li>{@code redis-sentinel://s1:26379,s2:26379/mymaster[/database]} (and {@code rediss-sentinel}): the
 *     primary a Sentinel group monitors, followed across failovers;</li>
 * <li>{@code redlock://h1:6379,h2:6379,h3:6379[/database]}: RedLock over independent primaries;</li>
 * <li>{@code redis-cluster://h1:7000,h2:7001,...} (and {@code rediss-cluster}): a Redis Cluster, found from any of
 *     the seed nodes; each lock lives on the primary of its slot, and waits for one replica of that shard by
 *     default.</li>
 * </ul>
 * Parameters: {@code client=jedis|redisson|lettuce} (default jedis; Redisson and Lettuce are optional dependencies
 * the application adds, all three run the same scripts on the same keys and exclude each other), {@code timeout}
 * (connect and command time-out, default 2s), {@code connectTimeout}, {@code poolSize} (default 8; Jedis and
 * Redisson pools, Lettuce multiplexes one connection), {@code waitReplicas} and {@code waitTimeout} (replica
 * acknowledgement of acquire and renew), {@code sentinelPassword}, {@code natMap} for Sentinel, {@code ssl} for
 * RedLock, and {@code trustStore} (with {@code trustStorePassword} for a JKS or PKCS#12 file) on URIs with TLS.
 * To use a {@code RedissonClient} the application already has, see {@link RedissonLocks}.
 *
 * <p>Creating a provider pings the store, so an unreachable server fails at once with a
 * {@link LockStoreException} naming it.
 */
public final class RedisLockProviderFactory implements LockProviderFactory {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RedisLockProviderFactory.class);

    @Override
    public Set<String> schemes() {
        return Set.of("redis", "rediss", "redis-sentinel", "rediss-sentinel", "redlock", "redis-cluster",
                "rediss-cluster");
    }

    /** Parses the settings as {@link #create} does, without connecting. */
    @Override
    public boolean validate(LockUri uri) {
        RedisSettings.parse(uri);
        return true;
    }

    @Override
    public LockProvider create(LockUri uri, ProviderContext context) {
        RedisSettings settings = RedisSettings.parse(uri);
        if (settings.transport() == RedisSettings.Transport.REDISSON) {
            requireRedisson(uri);
        } else if (settings.transport() == RedisSettings.Transport.LETTUCE) {
            requireLettuce(uri);
        }
        String description = settings.describe();
        try {
            return open(settings, description);
        } catch (LockStoreException e) {
            throw settings.ssl() ? settings.tls().explain(e) : e;
        }
    }

    private static LockProvider open(RedisSettings settings, String description) {
        return switch (settings.deployment()) {
            case SINGLE -> {
                LockProvider provider = single(open(settings, settings.hosts().get(0), description),
                        settings.replicaAck(), description, settings.commandTimeout());
                // ACCESS_CONTROL: the client authenticates, and the server refuses a client without credentials.
                boolean guarded = settings.hasPassword()
                        && AnonymousProbe.keepsOut(settings, settings.hosts().get(0), settings.commandTimeout());
                yield guarded ? ((RedisLockProvider) provider).accessControlled() : provider;
            }
            case SENTINEL -> single(switch (settings.transport()) {
                case JEDIS -> JedisTransports.sentinel(settings, description);
                case REDISSON -> RedissonTransports.sentinel(settings, description);
                case LETTUCE -> LettuceTransports.sentinel(settings, description);
            }, settings.replicaAck(), description, settings.commandTimeout());
            case REDLOCK -> redlock(settings, description);
            case CLUSTER -> single(cluster(settings, description), settings.replicaAck(), description,
                    settings.commandTimeout());
        };
    }

    private static RedisCommands cluster(RedisSettings settings, String description) {
        return switch (settings.transport()) {
            case JEDIS -> JedisTransports.cluster(settings, description);
            case REDISSON -> throw new LockConfigurationException("'" + description + "': Redis Cluster over"
                    + " client=redisson is not supported: its replica-acknowledged batches failed after a reshard and its"
                    + " per-slot renewals fell behind the lease under load (REDIS.md, 'Redis Cluster'); use client=jedis"
                    + " (the default), which runs the same scripts on the same keys");
            case LETTUCE -> LettuceTransports.cluster(settings, description);
        };
    }

    private static RedisCommands open(RedisSettings settings, LockUri.HostPort host, String description) {
        return switch (settings.transport()) {
            case JEDIS -> JedisTransports.node(settings, host, description);
            case REDISSON -> RedissonTransports.node(settings, host, description);
            case LETTUCE -> LettuceTransports.node(settings, host, description);
        };
    }

    /** A provider on one primary, pinged before it is handed out. */
    static LockProvider single(RedisCommands commands, ReplicaAck ack, String description) {
        return single(commands, ack, description, RedisSettings.DEFAULT_TIMEOUT);
    }

    /** A provider on one primary whose commands time out after {@code commandTimeout}, pinged before it is handed out. */
    static LockProvider single(RedisCommands commands, ReplicaAck ack, String description, Duration commandTimeout) {
        LockNode node = new LockNode(commands, ack);
        pingOrClose(List.of(node));
        return new RedisLockProvider(node, description, commandTimeout);
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
        return redlock(nodes, description, settings.commandTimeout());
    }

    static LockProvider redlock(List<LockNode> nodes, String description) {
        return redlock(nodes, description, RedisSettings.DEFAULT_TIMEOUT);
    }

    /**
     * A RedLock provider over {@code nodes}. A quorum of nodes must answer at creation, as a running client needs
     * a quorum for every acquire; a node that does not answer is named in a warning, and is used again as soon
     * as it answers (every command opens a connection when it has none). No quorum is an error naming the nodes.
     */
    static LockProvider redlock(List<LockNode> nodes, String description, Duration commandTimeout) {
        int quorum = nodes.size() / 2 + 1;
        List<String> down = new ArrayList<>();
        LockStoreException firstFailure = null;
        for (LockNode node : nodes) {
            try {
                node.ping();
            } catch (io.locksmith.LockConfigurationException e) {
                // A user that lacks a right is no master that is down: the same ACL is needed on every one.
                closeAll(nodes, e);
                throw e;
            } catch (RuntimeException e) {
                down.add(node.describe());
                if (firstFailure == null) {
                    firstFailure = e instanceof LockStoreException store ? store
                            : new LockStoreException(node.describe() + " did not answer PING", e);
                } else {
                    firstFailure.addSuppressed(e);
                }
            }
        }
        if (nodes.size() - down.size() < quorum) {
            LockStoreException noQuorum = new LockStoreException(description + ": only " + (nodes.size() - down.size())
                    + " of " + nodes.size() + " masters answer, a quorum is " + quorum + "; not answering: " + down,
                    firstFailure);
            closeAll(nodes, noQuorum);
            throw noQuorum;
        }
        if (!down.isEmpty()) {
            LOG.warn("{}: opened with {} of {} masters; not answering now: {} (used again as soon as they answer)",
                    description, nodes.size() - down.size(), nodes.size(), down);
        }
        // The nodes are asked one after the other (see RedLockProvider.attemptInOrder): a bound for all of them.
        return new RedLockProvider(nodes, description, commandTimeout.multipliedBy(nodes.size()));
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

    private static void requireLettuce(LockUri uri) {
        try {
            Class.forName("io.lettuce.core.RedisClient", false, RedisLockProviderFactory.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new LockConfigurationException("'" + uri + "' asks for client=lettuce, but Lettuce is not on the"
                    + " class path; add io.lettuce:lettuce-core (6.8) or use the default client=jedis");
        }
    }
}
