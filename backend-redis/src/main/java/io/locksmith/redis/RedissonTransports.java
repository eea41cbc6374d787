package io.locksmith.redis;

import io.locksmith.LockStoreException;
import io.locksmith.spi.LockUri;
import org.redisson.Redisson;
import org.redisson.api.HostPortNatMapper;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;
import org.redisson.config.Credentials;
import org.redisson.config.ReadMode;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SingleServerConfig;
import org.redisson.config.SslVerificationMode;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Builds Redisson clients from {@link RedisSettings}, for {@code ?client=redisson}. Only this class and
 * {@link RedissonCommands} touch Redisson, so Jedis users do not need it on the class path.
 */
final class RedissonTransports {

    private RedissonTransports() {
    }

    static RedisCommands node(RedisSettings settings, LockUri.HostPort host, String description) {
        Config config = baseConfig();
        SingleServerConfig server = config.useSingleServer()
                .setAddress((settings.ssl() ? "rediss://" : "redis://") + host)
                .setDatabase(settings.database())
                .setConnectionPoolSize(settings.poolSize())
                .setConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionPoolSize(1)
                .setSubscriptionConnectionMinimumIdleSize(1);
        connectionSettings(server, settings);
        return new RedissonCommands(create(config, description), true, description);
    }

    static RedisCommands sentinel(RedisSettings settings, String description) {
        Config config = baseConfig();
        SentinelServersConfig servers = config.useSentinelServers()
                .setMasterName(settings.masterName())
                .setDatabase(settings.database())
                .setCheckSentinelsList(false)
                .setReadMode(ReadMode.MASTER)
                .setMasterConnectionPoolSize(settings.poolSize())
                .setMasterConnectionMinimumIdleSize(1)
                .setSlaveConnectionPoolSize(1)
                .setSlaveConnectionMinimumIdleSize(0)
                .setSubscriptionConnectionPoolSize(1)
                .setSubscriptionConnectionMinimumIdleSize(1);
        for (LockUri.HostPort host : settings.hosts()) {
            servers.addSentinelAddress((settings.ssl() ? "rediss://" : "redis://") + host);
        }
        if (settings.sentinelPassword() != null) {
            servers.setSentinelPassword(settings.sentinelPassword());
        }
        if (!settings.natMap().isEmpty()) {
            servers.setNatMapper(natMapper(settings));
        }
        connectionSettings(servers, settings);
        return new RedissonCommands(create(config, description), true, description);
    }

    /** What every deployment's connections share: time-outs, no retries of Redisson's own, credentials. */
    private static <T extends BaseConfig<T>> void connectionSettings(T servers, RedisSettings settings) {
        servers.setTimeout(millis(settings.commandTimeout().toMillis()))
                .setConnectTimeout(millis(settings.connectTimeout().toMillis()))
                .setRetryAttempts(0)
                .setSubscriptionsPerConnection(10_000)
                .setUsername(settings.user())
                .setPassword(settings.password());
        if (settings.passwordFile() != null) {
            // Redisson asks the resolver for each new connection: a rotated file is used from then on. A file that
            // cannot be read fails that connection, naming the file.
            servers.setCredentialsResolver(address -> {
                try {
                    return CompletableFuture.completedFuture(new Credentials(settings.user(),
                            settings.currentPassword()));
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
            });
        }
        if (settings.ssl()) {
            // STRICT: the chain and the host name, as Jedis and Lettuce here.
            servers.setSslVerificationMode(SslVerificationMode.STRICT);
            if (settings.tls().trust() != null) {
                servers.setSslTrustManagerFactory(settings.tls().trust());
            }
            if (settings.tls().keys() != null) {
                servers.setSslKeyManagerFactory(settings.tls().keys());
            }
        }
    }

    /** The addresses the Sentinels announce, mapped to the ones this client reaches. */
    private static HostPortNatMapper natMapper(RedisSettings settings) {
        Map<String, String> natMap = new HashMap<>();
        settings.natMap().forEach((announced, reachable) -> natMap.put(announced.toString(), reachable.toString()));
        HostPortNatMapper mapper = new HostPortNatMapper();
        mapper.setHostsPortMap(natMap);
        return mapper;
    }

    /** Wraps a client the application already has; closing the provider leaves it open. */
    static RedisCommands existing(RedissonClient client, String description) {
        return new RedissonCommands(client, false, description);
    }

    // setRetryAttempts(0): a Redisson retry would stretch a command past the configured timeout; the lock
    // client retries on its own, with backoff, and every script is safe to repeat.

    private static Config baseConfig() {
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        // A lock client needs few threads; Redisson's defaults size for a cache server.
        config.setThreads(2);
        config.setNettyThreads(4);
        return config;
    }

    private static RedissonClient create(Config config, String description) {
        try {
            return Redisson.create(config);
        } catch (RuntimeException e) {
            throw new LockStoreException(description + ": cannot connect: " + e.getMessage() + Causes.rootCause(e), e);
        }
    }

    private static int millis(long millis) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, millis));
    }
}
