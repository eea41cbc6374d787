package io.locksmith.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.masterreplica.MasterReplica;
import io.lettuce.core.masterreplica.StatefulRedisMasterReplicaConnection;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.MappingSocketAddressResolver;
import io.locksmith.spi.LockUri;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Builds Lettuce clients from {@link RedisSettings}, for {@code ?client=lettuce}. Only this class,
 * {@link LettuceCommands}, {@link LettuceClusterCommands} and {@link LettuceSubscriber} touch Lettuce, so Jedis users
 * do not need it on the class path. Each transport owns its client and its {@link ClientResources} (two I/O threads,
 * two computation threads and Lettuce's timer), and opens two connections: one for every command, one for release
 * notifications (on a Redis Cluster, the command connection is one per primary, opened by Lettuce's cluster
 * connection as calls need them).
 */
final class LettuceTransports {

    /**
     * The pause between reconnect attempts, doubling from 50 ms to at most 1 s (as the Jedis subscriber): Lettuce's
     * default grows to 30 s, which kept a client away from a restarted server that long.
     */
    private static final Duration RECONNECT_FIRST = Duration.ofMillis(50);
    private static final Duration RECONNECT_MAX = Duration.ofSeconds(1);
    /** How often a cluster client reads the slot map unasked: a promoted replica is found within about a second. */
    private static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(1);

    private LettuceTransports() {
    }

    /** One node: the single-node deployment, or one RedLock node. */
    static RedisCommands node(RedisSettings settings, LockUri.HostPort host, String description) {
        RedisURI uri = credentials(RedisURI.builder().withHost(host.host()).withPort(host.port()), settings).build();
        ClientResources resources = resources(Map.of());
        RedisClient client = client(resources, settings);
        LettuceSubscriber subscriber = new LettuceSubscriber(() -> client.connectPubSub(StringCodec.UTF8, uri), description);
        client.addListener(subscriber);
        return new LettuceCommands(() -> client.connect(StringCodec.UTF8, uri), subscriber, () -> shutdown(client, resources),
                InetSocketAddress.createUnresolved(host.host(), host.port()), settings.commandTimeout(), description);
    }

    /**
     * The primary a Sentinel group monitors. Commands go through Lettuce's master/replica connection, which listens
     * to the Sentinels' {@code +switch-master} and moves to the promoted replica (a plain connection would stay on a
     * demoted primary that is still reachable and fail every write with {@code READONLY}); notifications through a
     * pub/sub connection that asks the Sentinels for the primary at every reconnect.
     */
    static RedisCommands sentinel(RedisSettings settings, String description) {
        RedisURI.Builder builder = RedisURI.builder().withSentinelMasterId(settings.masterName());
        for (LockUri.HostPort host : settings.hosts()) {
            RedisURI.Builder sentinel = RedisURI.builder().withHost(host.host()).withPort(host.port())
                    .withSsl(settings.ssl()).withTimeout(settings.timeout());
            if (settings.sentinelPassword() != null) {
                sentinel.withPassword(settings.sentinelPassword().toCharArray());
            }
            builder.withSentinel(sentinel.build());
        }
        RedisURI uri = credentials(builder, settings).build();
        ClientResources resources = resources(settings.natMap());
        RedisClient client = client(resources, settings);
        LettuceSubscriber subscriber = new LettuceSubscriber(() -> client.connectPubSub(StringCodec.UTF8, uri), description);
        client.addListener(subscriber);
        return new LettuceCommands(() -> {
            StatefulRedisMasterReplicaConnection<String, String> primary = MasterReplica.connect(client, StringCodec.UTF8, uri);
            primary.setReadFrom(ReadFrom.UPSTREAM);
            return primary;
        }, subscriber, () -> shutdown(client, resources), null, settings.commandTimeout(), description);
    }

    /**
     * A Redis Cluster, found from any of the hosts. Lettuce's slot map is read again every second and at once when a
     * connection of Lettuce's own meets a redirect or keeps reconnecting; {@link LettuceClusterCommands} also reads it
     * after each {@code MOVED} and lost connection of its calls, which Lettuce does not see (they bypass its routing).
     * natMap maps the addresses the nodes announce, as under Sentinel.
     */
    static RedisCommands cluster(RedisSettings settings, String description) {
        List<RedisURI> seeds = new ArrayList<>();
        for (LockUri.HostPort host : settings.hosts()) {
            seeds.add(credentials(RedisURI.builder().withHost(host.host()).withPort(host.port()), settings).build());
        }
        ClientResources resources = resources(settings.natMap());
        RedisClusterClient client = RedisClusterClient.create(resources, seeds);
        client.setOptions(ClusterClientOptions.builder(options(settings))
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(TOPOLOGY_REFRESH)
                        .enableAllAdaptiveRefreshTriggers()
                        // A redirect storm reads the map once per 100 ms, not once per redirect (as Jedis' cluster).
                        .adaptiveRefreshTriggersTimeout(Duration.ofMillis(100))
                        .build())
                .build());
        LettuceSubscriber subscriber = new LettuceSubscriber(() -> client.connectPubSub(StringCodec.UTF8), description);
        client.addListener(subscriber);
        return new LettuceClusterCommands(client, () -> client.connect(StringCodec.UTF8), subscriber,
                () -> shutdown(client, resources), settings.commandTimeout(), description);
    }

    private static RedisURI.Builder credentials(RedisURI.Builder builder, RedisSettings settings) {
        // The URI's time-out bounds Lettuce's connection hand-shake (HELLO/AUTH, SELECT, CLIENT SETNAME) and the
        // Sentinel queries; commands are bounded by the TimeoutOptions and by LettuceCommands' own wait.
        builder.withDatabase(settings.database()).withSsl(settings.ssl()).withTimeout(settings.connectTimeout())
                .withClientName("locksmith");
        if (settings.passwordFile() != null) {
            // Lettuce resolves the credentials at each connection's hand-shake, reconnects included.
            builder.withAuthentication(RedisCredentialsProvider.from(
                    () -> RedisCredentials.just(settings.user(), settings.currentPassword())));
        } else if (settings.password() != null) {
            if (settings.user() != null) {
                builder.withAuthentication(settings.user(), settings.password().toCharArray());
            } else {
                builder.withPassword(settings.password().toCharArray());
            }
        }
        return builder;
    }

    /** @param natMap the addresses the Sentinels announce, mapped to the ones this client reaches (natMap) */
    private static ClientResources resources(Map<LockUri.HostPort, LockUri.HostPort> natMap) {
        ClientResources.Builder builder = ClientResources.builder()
                // A lock client needs few threads; Lettuce's defaults size one per core for a cache client.
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2) // Lettuce's minimum
                .reconnectDelay(() -> Delay.exponential(RECONNECT_FIRST, RECONNECT_MAX, 2, TimeUnit.MILLISECONDS))
                .commandLatencyRecorder(CommandLatencyRecorder.disabled());
        if (!natMap.isEmpty()) {
            Map<HostAndPort, HostAndPort> map = new HashMap<>();
            natMap.forEach((announced, reachable) -> map.put(HostAndPort.of(announced.host(), announced.port()),
                    HostAndPort.of(reachable.host(), reachable.port())));
            Function<HostAndPort, HostAndPort> mapping = announced -> map.getOrDefault(announced, announced);
            builder.socketAddressResolver(MappingSocketAddressResolver.create(mapping));
        }
        return builder.build();
    }

    private static RedisClient client(ClientResources resources, RedisSettings settings) {
        RedisClient client = RedisClient.create(resources);
        client.setOptions(options(settings));
        return client;
    }

    /** The connection options of every Lettuce client here, one node's or a cluster's. */
    private static ClientOptions options(RedisSettings settings) {
        ClientOptions.Builder builder = ClientOptions.builder();
        if (settings.ssl() && (settings.tls().trust() != null || settings.tls().keys() != null)) {
            // The URIs' verifyPeer stays FULL (Lettuce's default): the chain and the host name.
            SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider();
            if (settings.tls().trust() != null) {
                ssl.trustManager(settings.tls().trust());
            }
            if (settings.tls().keys() != null) {
                ssl.keyManager(settings.tls().keys());
            }
            builder.sslOptions(ssl.build());
        }
        return builder
                .autoReconnect(true)
                // A call during an outage fails at once rather than wait in Lettuce's buffer for its whole time-out,
                // and what was in flight when the connection dropped fails too (not replayed after the reconnect).
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                // RESP2 as Jedis and Redisson: script replies keep the same types (RESP3 turns Lua's true into a boolean).
                .protocolVersion(ProtocolVersion.RESP2)
                .socketOptions(SocketOptions.builder().connectTimeout(settings.connectTimeout()).build())
                .timeoutOptions(TimeoutOptions.enabled(settings.commandTimeout()))
                .build();
    }

    private static void shutdown(AbstractRedisClient client, ClientResources resources) {
        // No quiet period: nothing is left to run once the connections are closed, and a lock client closes often
        // in tests and short jobs.
        try {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        } finally {
            // The resources are ours, not the client's (it was given them), so it leaves them running: their threads
            // are ended here, and awaited so that a closed lock client leaves no Lettuce thread behind.
            try {
                // As the JDK's Future: this module does not read Netty's, which the method declares.
                java.util.concurrent.Future<Boolean> ended = resources.shutdown(0, 2, TimeUnit.SECONDS);
                ended.get(3, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new io.locksmith.LockStoreException("Lettuce's threads did not end within 3 s", e);
            }
        }
    }

    /**
     * Closes what a Lettuce transport opened, in order: the subscriber, the command connection (null if none was
     * opened), then the client and its resources. Every step runs; the first failure is thrown with the others
     * suppressed, as a {@link io.locksmith.LockStoreException} naming the store.
     */
    static void close(String description, LettuceSubscriber subscriber, AutoCloseable connection, Runnable shutdown) {
        RuntimeException failure = null;
        List<Runnable> steps = new java.util.ArrayList<>();
        steps.add(subscriber::close);
        if (connection != null) {
            steps.add(() -> {
                try {
                    connection.close();
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        steps.add(shutdown);
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw new io.locksmith.LockStoreException(description + ": closing the Lettuce client failed", failure);
        }
    }
}
