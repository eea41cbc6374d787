package io.locksmith.redis;

import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;
import org.redisson.api.BatchOptions;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisNoScriptException;
import org.redisson.client.codec.StringCodec;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@link RedisCommands} over a {@link RedissonClient}: the same scripts on the same keys as Jedis, so Jedis
 * and Redisson clients exclude each other on one lock name. Notifications use Redisson's own topic
 * subscriptions, which Redisson multiplexes on its subscription connections and restores after failover. A client in
 * cluster mode is refused: Redis Cluster runs over Jedis ({@code JedisClusterCommands}).
 */
final class RedissonCommands implements RedisCommands {

    private final RedissonClient client;
    private final boolean owned;
    private final String description;

    /**
     * @param owned whether {@link #close()} shuts the client down (true when created from a URI, false for a
     *              client the application handed over and still uses)
     */
    RedissonCommands(RedissonClient client, boolean owned, String description) {
        this.client = client;
        this.owned = owned;
        this.description = description;
        if (client.getConfig().isClusterConfig()) {
            // Its batches and renewals would meet CROSSSLOT, and over Redisson they were not reliable on a cluster.
            throw new LockConfigurationException(description + ": the RedissonClient is in cluster mode; Redis Cluster"
                    + " over Redisson is not supported (REDIS.md, 'Redis Cluster'): open a redis-cluster:// URI, which"
                    + " runs over Jedis");
        }
    }

    @Override
    public Reply evalsha(String sha, List<String> keys, List<String> args, ReplicaAck ack) {
        return call(() -> ack == null
                ? new Reply(script().evalSha(RScript.Mode.READ_WRITE, sha, RScript.ReturnType.MULTI, objects(keys),
                        args.toArray()), -1)
                : withReplicaAck(sha, true, keys, args, ack));
    }

    @Override
    public Reply eval(String script, List<String> keys, List<String> args, ReplicaAck ack) {
        return call(() -> ack == null
                ? new Reply(script().eval(RScript.Mode.READ_WRITE, script, RScript.ReturnType.MULTI, objects(keys),
                        args.toArray()), -1)
                : withReplicaAck(script, false, keys, args, ack));
    }

    private RScript script() {
        return client.getScript(StringCodec.INSTANCE);
    }

    /** WAIT must follow the write on its connection: a batch with replica sync does exactly that. */
    private Reply withReplicaAck(String shaOrText, boolean bySha, List<String> keys, List<String> args, ReplicaAck ack) {
        RBatch batch = client.createBatch(BatchOptions.defaults().sync(ack.replicas(), ack.timeout()));
        if (bySha) {
            batch.getScript(StringCodec.INSTANCE).evalShaAsync(RScript.Mode.READ_WRITE, shaOrText,
                    RScript.ReturnType.MULTI, objects(keys), args.toArray());
        } else {
            batch.getScript(StringCodec.INSTANCE).evalAsync(RScript.Mode.READ_WRITE, shaOrText,
                    RScript.ReturnType.MULTI, objects(keys), args.toArray());
        }
        BatchResult<?> result = batch.execute();
        return new Reply(result.getResponses().get(0), result.getSyncedSlaves());
    }

    private Reply call(Supplier<Reply> command) {
        try {
            return command.get();
        } catch (RuntimeException e) {
            if (isNoScript(e)) {
                throw new NoScriptException(e);
            }
            throw new LockStoreException(description + ": command failed: " + e.getMessage(), e);
        }
    }

    private static boolean isNoScript(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RedisNoScriptException || (t.getMessage() != null && t.getMessage().startsWith("NOSCRIPT"))) {
                return true;
            }
        }
        return false;
    }

    private static List<Object> objects(List<String> keys) {
        return new ArrayList<>(keys);
    }

    @Override
    public AutoCloseable subscribe(String channel, java.util.function.Consumer<String> onMessage) {
        RTopic topic = client.getTopic(channel, StringCodec.INSTANCE);
        int id;
        try {
            id = topic.addListener(String.class, (ch, message) -> onMessage.accept(message));
        } catch (RuntimeException e) {
            throw new LockStoreException(description + ": cannot subscribe to " + channel + ": " + e.getMessage(), e);
        }
        return () -> topic.removeListener(id);
    }

    /** Redisson pings its connections, and its {@code eval} loads the script ({@code SCRIPT LOAD}) before it runs it. */
    @Override
    public List<List<String>> ownCommands() {
        return OWN_COMMANDS;
    }

    /** What {@link #ownCommands()} answers, for a check made without a client ({@link RedisClientSettings}). */
    static final List<List<String>> OWN_COMMANDS = List.of(List.of("ping"), List.of("script", "load", "return 0"));

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        if (owned) {
            client.shutdown();
        }
    }
}
