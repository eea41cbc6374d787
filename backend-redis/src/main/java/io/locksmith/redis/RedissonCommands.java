package io.locksmith.redis;

import io.locksmith.LockStoreException;
import org.redisson.api.BatchOptions;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisNoScriptException;
import org.redisson.api.redisnode.RedisClusterMaster;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.codec.StringCodec;
import org.redisson.cluster.ClusterSlotRange;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@link RedisCommands} over a {@link RedissonClient}: the same scripts on the same keys as Jedis, so Jedis
 * and Redisson clients exclude each other on one lock name. Notifications use Redisson's own topic
 * subscriptions, which Redisson multiplexes on its subscription connections and restores after failover. On a
 * Redis Cluster (a client in cluster mode), Redisson sends each script to the primary of its first key's slot and
 * follows redirects; batch renewals are split by slot ({@link #slotOf}).
 */
final class RedissonCommands implements RedisCommands {

    private final RedissonClient client;
    private final boolean owned;
    private final String description;
    /** A Redis Cluster client: scripts are split by slot, and keyless scripts run on each primary in turn. */
    private final boolean clustered;
    /** For each slot asked for, a key in it: how a keyless script is sent to the primary that serves that slot. */
    private final java.util.Map<Integer, String> keyOfSlot = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param owned whether {@link #close()} shuts the client down (true when created from a URI, false for a
     *              client the application handed over and still uses)
     */
    RedissonCommands(RedissonClient client, boolean owned, String description) {
        this.client = client;
        this.owned = owned;
        this.description = description;
        this.clustered = client.getConfig().isClusterConfig();
    }

    /** On a Redis Cluster, the key's slot (as Redis computes it, hash tag included); 0 otherwise. */
    @Override
    public int slotOf(String key) {
        return clustered ? JedisClusterCRC16.getSlot(key) : 0;
    }

    /**
     * On a Redis Cluster, one view per primary Redisson knows now, each running keyless scripts on that primary:
     * Redisson sends a script to the primary of its routing key's slot, so each view routes by a key in a slot of its
     * primary's own range. Elsewhere this object alone.
     */
    @Override
    public List<RedisCommands> primaries() {
        if (!clustered) {
            return List.of(this);
        }
        List<RedisCommands> primaries = new ArrayList<>();
        try {
            for (RedisClusterMaster master : client.getRedisNodes(RedisNodes.CLUSTER).getMasters()) {
                String address = master.getAddr().getHostString() + ":" + master.getAddr().getPort();
                for (Map.Entry<ClusterSlotRange, Set<String>> range : master.clusterSlots().entrySet()) {
                    // Each range lists its primary and its replicas: a primary's own range lists it.
                    if (range.getValue().contains(address)) {
                        primaries.add(new OnePrimary(address, keyInSlot(range.getKey().getStartSlot())));
                        break;
                    }
                }
            }
        } catch (RuntimeException e) {
            throw new LockStoreException(description + ": cannot read the cluster's primaries: " + e.getMessage(), e);
        }
        return primaries;
    }

    /** A key whose slot is {@code slot}, found once by trying names in turn (about 16,000 CRC16s, under a ms). */
    private String keyInSlot(int slot) {
        return keyOfSlot.computeIfAbsent(slot, wanted -> {
            for (int i = 0; ; i++) {
                String key = "locksmith-route:" + i;
                if (JedisClusterCRC16.getSlot(key) == wanted) {
                    return key;
                }
            }
        });
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

    /** Keyless scripts (a SCAN step) on one primary of a Redis Cluster, routed by a key of its slots. */
    private final class OnePrimary extends OnePrimaryCommands {
        private final String routingKey;

        OnePrimary(String address, String routingKey) {
            super(description + " primary " + address);
            this.routingKey = routingKey;
        }

        @Override
        public Reply evalsha(String sha, List<String> keys, List<String> args, ReplicaAck ack) {
            return call(() -> new Reply(script().evalSha(routingKey, RScript.Mode.READ_WRITE, sha,
                    RScript.ReturnType.MULTI, objects(keys), args.toArray()), -1));
        }

        @Override
        public Reply eval(String script, List<String> keys, List<String> args, ReplicaAck ack) {
            return call(() -> new Reply(script().eval(routingKey, RScript.Mode.READ_WRITE, script,
                    RScript.ReturnType.MULTI, objects(keys), args.toArray()), -1));
        }
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
