package io.locksmith.redis;

import io.locksmith.LockStoreException;
import io.locksmith.spi.LockUri;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.DefaultRedisCredentials;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.HostAndPortMapper;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.providers.PooledConnectionProvider;
import redis.clients.jedis.providers.SentineledConnectionProvider;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/** Builds Jedis connection pools from {@link RedisSettings}. */
final class JedisTransports {

    private JedisTransports() {
    }

    /** A pool on one node: the single-node deployment, or one RedLock node. */
    static RedisCommands node(RedisSettings settings, LockUri.HostPort host, String description) {
        JedisClientConfig config = clientConfig(settings);
        HostAndPort address = new HostAndPort(host.host(), host.port());
        if (settings.ssl()) {
            return new JedisCommands(new PooledConnectionProvider(address, config, poolConfig(settings)), () -> address,
                    config, description, settings.poolSize());
        }
        // Plain TCP: every wait of a call ends by one deadline, the command time-out, so that the shared client
        // may call on the caller's thread (LockProvider.callTimeLimit()).
        DeadlineSockets.SocketFactory sockets = new DeadlineSockets.SocketFactory(address, config.getConnectionTimeoutMillis(),
                config.getSocketTimeoutMillis());
        PooledConnectionProvider pool = new PooledConnectionProvider(new ConnectionFactory(sockets, config),
                poolConfig(settings));
        return new JedisCommands(pool, () -> address, config, description, settings.commandTimeout(), settings.timeout());
    }

    /** A pool that asks the Sentinels for the primary and follows its failovers. */
    static RedisCommands sentinel(RedisSettings settings, String description) {
        JedisClientConfig config = clientConfig(settings, natMapper(settings));
        Set<HostAndPort> sentinels = new LinkedHashSet<>();
        for (LockUri.HostPort host : settings.hosts()) {
            sentinels.add(new HostAndPort(host.host(), host.port()));
        }
        DefaultJedisClientConfig.Builder sentinelConfig = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis(settings.connectTimeout().toMillis()))
                .socketTimeoutMillis(millis(settings.timeout().toMillis()));
        tls(sentinelConfig, settings);
        if (settings.sentinelPassword() != null) {
            sentinelConfig.password(settings.sentinelPassword());
        }
        SentineledConnectionProvider provider;
        try {
            provider = new SentineledConnectionProvider(settings.masterName(), config, poolConfig(settings), sentinels,
                    sentinelConfig.build());
        } catch (JedisException e) {
            throw new LockStoreException(description + ": cannot find the primary of '" + settings.masterName()
                    + "' through the Sentinels: " + e.getMessage(), e);
        }
        return new JedisCommands(provider, provider::getCurrentMaster, config, description, settings.poolSize());
    }

    /**
     * The primaries and replicas of a Redis Cluster, found from the URI's seed nodes; the slot map is read again
     * whenever a node redirects a command or goes away. Each node gets a pool of {@code poolSize} connections.
     */
    static RedisCommands cluster(RedisSettings settings, String description) {
        JedisClientConfig config = clientConfig(settings, natMapper(settings));
        Set<HostAndPort> seeds = new LinkedHashSet<>();
        for (LockUri.HostPort host : settings.hosts()) {
            seeds.add(new HostAndPort(host.host(), host.port()));
        }
        ClusterConnectionProvider cluster;
        try {
            // Jedis starts the periodic refresh's thread before it first reads the slot map, and a constructor that
            // then fails (no seed answers, the user may not run CLUSTER SLOTS) leaves that thread running where nobody
            // can stop it, reading the map every 100 ms for the life of the JVM: the map is read once without it first.
            new ClusterConnectionProvider(seeds, config, poolConfig(settings)).close();
            // Read the slot map again at most every 100 ms when asked to: a failover or reshard is seen at once,
            // and a burst of redirected calls does not ask the nodes for it once per call.
            cluster = new ClusterConnectionProvider(seeds, config, poolConfig(settings), Duration.ofMillis(100));
        } catch (JedisException e) {
            throw new LockStoreException(description + ": cannot read the cluster's slot map from any of "
                    + settings.hosts() + ": " + e.getMessage() + Causes.rootCause(e), e);
        }
        return new JedisClusterCommands(cluster, config, description, settings.commandTimeout(), settings.poolSize());
    }

    /**
     * The addresses the Sentinels (or the cluster's nodes) announce, mapped to the ones this client reaches ({@code natMap}). Jedis maps
     * them when a socket connects, so the pool still knows each node by its announced address.
     */
    private static HostAndPortMapper natMapper(RedisSettings settings) {
        if (settings.natMap().isEmpty()) {
            return null;
        }
        Map<HostAndPort, HostAndPort> map = new HashMap<>();
        settings.natMap().forEach((announced, reachable) -> map.put(new HostAndPort(announced.host(), announced.port()),
                new HostAndPort(reachable.host(), reachable.port())));
        return announced -> map.getOrDefault(announced, announced);
    }

    private static JedisClientConfig clientConfig(RedisSettings settings) {
        return clientConfig(settings, null);
    }

    private static JedisClientConfig clientConfig(RedisSettings settings, HostAndPortMapper mapper) {
        DefaultJedisClientConfig.Builder builder = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis(settings.connectTimeout().toMillis()))
                .socketTimeoutMillis(millis(settings.commandTimeout().toMillis()))
                .database(settings.database())
                .clientName("locksmith");
        tls(builder, settings);
        if (mapper != null) {
            builder.hostAndPortMapper(mapper);
        }
        if (settings.passwordFile() != null) {
            // Jedis asks the provider at each new connection's AUTH/HELLO: a rotated file is used from then on.
            builder.credentialsProvider(() -> new DefaultRedisCredentials(settings.user(), settings.currentPassword()));
        } else {
            if (settings.user() != null) {
                builder.user(settings.user());
            }
            if (settings.password() != null) {
                builder.password(settings.password());
            }
        }
        return builder.build();
    }

    /**
     * TLS with the URI's trusted authorities, checking the host name: Jedis on its own checks the certificate's chain
     * but not that it names the host it connected to.
     */
    static void tls(DefaultJedisClientConfig.Builder builder, RedisSettings settings) {
        builder.ssl(settings.ssl());
        if (settings.ssl()) {
            builder.sslSocketFactory(settings.tls().socketFactory()).sslParameters(RedisTls.verifyingHostNames());
        }
    }

    private static GenericObjectPoolConfig<Connection> poolConfig(RedisSettings settings) {
        // Jedis' pool defaults test idle connections in the background, so one broken by a server restart or
        // a failover is dropped before it is handed out, most of the time.
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(settings.poolSize());
        pool.setMaxIdle(settings.poolSize());
        pool.setMinIdle(0);
        // A full pool is a timeout like any other, never an endless wait.
        pool.setMaxWait(settings.timeout());
        pool.setJmxEnabled(false);
        return pool;
    }

    private static int millis(long millis) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, millis));
    }
}
