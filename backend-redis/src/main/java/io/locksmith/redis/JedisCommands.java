package io.locksmith.redis;

import io.locksmith.LockStoreException;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.providers.ConnectionProvider;

import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@link RedisCommands} over Jedis: commands on a pooled connection (a plain pool for one node, a
 * Sentinel-aware pool that follows failovers for a monitored primary), release notifications on one
 * separate subscriber connection.
 */
final class JedisCommands implements RedisCommands {

    private final ConnectionProvider pool;
    private final String description;
    private final JedisSubscriber subscriber;

    /**
     * @param pool         the command connections; closed with this object
     * @param primary      where the subscriber connects now (for Sentinel: the current primary)
     * @param clientConfig the connection settings for the subscriber
     */
    JedisCommands(ConnectionProvider pool, Supplier<HostAndPort> primary, JedisClientConfig clientConfig,
                  String description) {
        this.pool = pool;
        this.description = description;
        this.subscriber = new JedisSubscriber(primary, clientConfig, description);
    }

    @Override
    public Reply evalsha(String sha, List<String> keys, List<String> args, ReplicaAck ack) {
        return call(jedis -> jedis.evalsha(sha, keys, args), ack);
    }

    @Override
    public Reply eval(String script, List<String> keys, List<String> args, ReplicaAck ack) {
        return call(jedis -> jedis.eval(script, keys, args), ack);
    }

    private Reply call(Function<Jedis, Object> script, ReplicaAck ack) {
        Connection connection;
        try {
            connection = pool.getConnection();
        } catch (JedisException e) {
            throw storeFailure("cannot connect", e);
        }
        try (connection) {
            // WAIT counts the writes of its own connection: it must follow the script on the same one.
            Jedis jedis = new Jedis(connection);
            Object value = script.apply(jedis);
            int acknowledged = ack == null ? -1 : (int) jedis.waitReplicas(ack.replicas(), ack.timeout().toMillis());
            return new Reply(value, acknowledged);
        } catch (JedisNoScriptException e) {
            throw new NoScriptException(e);
        } catch (JedisException e) {
            throw storeFailure("command failed", e);
        }
    }

    private LockStoreException storeFailure(String what, JedisException e) {
        return new LockStoreException(description + ": " + what + ": " + e.getMessage(), e);
    }

    @Override
    public AutoCloseable subscribe(String channel, Runnable onMessage) {
        return subscriber.subscribe(channel, onMessage);
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        subscriber.close();
        try {
            pool.close();
        } catch (Exception e) {
            throw new LockStoreException(description + ": closing the connection pool failed", e);
        }
    }
}
