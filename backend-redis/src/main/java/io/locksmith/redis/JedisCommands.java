package io.locksmith.redis;

import io.locksmith.LockStoreException;
import io.locksmith.spi.CallDeadline;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.providers.ConnectionProvider;
import redis.clients.jedis.providers.PooledConnectionProvider;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
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
    /** Builds the commands; one for all calls (a {@code new Jedis(connection)} per call built one each time). */
    private final CommandObjects commandObjects = new CommandObjects();
    /**
     * The pool to borrow from under a {@link CallDeadline}, with the time-out its sockets and waits keep for one
     * call; null when the transport keeps no such limit (Sentinel's pool, TLS sockets).
     */
    private final ConnectionPool deadlinePool;
    private final Duration callLimit;
    private final Duration poolMaxWait;
    /** The most connections the pool opens: each call holds one. */
    private final int poolSize;

    /**
     * @param pool         the command connections; closed with this object
     * @param primary      where the subscriber connects now (for Sentinel: the current primary)
     * @param clientConfig the connection settings for the subscriber
     * @param poolSize     the most connections {@code pool} opens
     */
    JedisCommands(ConnectionProvider pool, Supplier<HostAndPort> primary, JedisClientConfig clientConfig,
                  String description, int poolSize) {
        this(pool, primary, clientConfig, description, null, null, null, poolSize);
    }

    /**
     * Commands whose every wait ends within {@code callLimit} per call ({@link #oneCall}): the pool's sockets come
     * from a {@link DeadlineSockets.SocketFactory}, and the pool is waited for no longer than the call has left.
     */
    JedisCommands(PooledConnectionProvider pool, Supplier<HostAndPort> primary, JedisClientConfig clientConfig,
                  String description, Duration callLimit, Duration poolMaxWait) {
        this(pool, primary, clientConfig, description, (ConnectionPool) pool.getPool(), callLimit, poolMaxWait,
                ((ConnectionPool) pool.getPool()).getMaxTotal());
    }

    private JedisCommands(ConnectionProvider pool, Supplier<HostAndPort> primary, JedisClientConfig clientConfig,
                          String description, ConnectionPool deadlinePool, Duration callLimit, Duration poolMaxWait,
                          int poolSize) {
        this.poolSize = poolSize;
        this.pool = pool;
        this.description = description;
        this.subscriber = new JedisSubscriber(primary, clientConfig, description);
        this.deadlinePool = deadlinePool;
        this.callLimit = callLimit;
        this.poolMaxWait = poolMaxWait;
    }

    /** The pool's size less one: the renewal batch, which the shared client does not count, finds a connection. */
    @Override
    public int maxConcurrentCalls() {
        return Math.max(1, poolSize - 1);
    }

    @Override
    public Optional<Duration> callTimeLimit() {
        return Optional.ofNullable(callLimit);
    }

    @Override
    public <T> T oneCall(Supplier<T> call) {
        return callLimit == null ? call.get() : CallDeadline.within(callLimit, call);
    }

    @Override
    public Reply evalsha(String sha, List<String> keys, List<String> args, ReplicaAck ack) {
        return call(commandObjects.evalsha(sha, keys, args), ack);
    }

    @Override
    public Reply eval(String script, List<String> keys, List<String> args, ReplicaAck ack) {
        return call(commandObjects.eval(script, keys, args), ack);
    }

    private Reply call(CommandObject<Object> script, ReplicaAck ack) {
        Connection connection;
        try {
            connection = borrow();
        } catch (JedisException e) {
            throw storeFailure("cannot connect", e);
        }
        try (connection) {
            // WAIT counts the writes of its own connection: it must follow the script on the same one.
            Object value = connection.executeCommand(script);
            int acknowledged = ack == null ? -1
                    : (int) (long) connection.executeCommand(commandObjects.waitReplicas(ack.replicas(),
                    ack.timeout().toMillis()));
            return new Reply(value, acknowledged);
        } catch (JedisNoScriptException e) {
            throw new NoScriptException(e);
        } catch (JedisException e) {
            throw storeFailure("command failed", e);
        }
    }

    /** A pooled connection; under a deadline, waited for no longer than the call has left. */
    private Connection borrow() {
        if (deadlinePool == null) {
            return pool.getConnection();
        }
        Connection connection;
        try {
            connection = deadlinePool.borrowObject(Duration.ofNanos(CallDeadline.remainingNanos(poolMaxWait.toNanos())));
        } catch (JedisException e) {
            throw e;
        } catch (Exception e) {
            throw new JedisException("Could not get a resource from the pool", e);
        }
        // As ConnectionPool.getResource(): closing the connection returns it to this pool.
        connection.setHandlingPool(deadlinePool);
        return connection;
    }

    private LockStoreException storeFailure(String what, JedisException e) {
        return new LockStoreException(description + ": " + what + ": " + e.getMessage(), e);
    }

    @Override
    public AutoCloseable subscribe(String channel, java.util.function.Consumer<String> onMessage) {
        return subscriber.subscribe(channel, onMessage);
    }

    /** Jedis names each connection ({@code CLIENT SETNAME locksmith}). */
    @Override
    public List<List<String>> ownCommands() {
        return OWN_COMMANDS;
    }

    /** What {@link #ownCommands()} answers, for a check made without a client ({@link RedisClientSettings}). */
    static final List<List<String>> OWN_COMMANDS = List.of(List.of("client", "setname", "locksmith"));

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
