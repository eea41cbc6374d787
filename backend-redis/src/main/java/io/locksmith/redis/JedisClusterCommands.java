package io.locksmith.redis;

import io.locksmith.LockStoreException;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * {@link RedisCommands} on a Redis Cluster over Jedis: each script goes to the primary that serves its keys' slot
 * (every key of a lock carries the name as hash tag, so one lock is one slot), followed by {@code WAIT} on the same
 * connection, which counts that primary's own replicas. Jedis' {@code JedisCluster} follows redirects too, but
 * runs each command on a connection of its choosing, and {@code WAIT} must follow the write on its connection: so
 * the routing is done here, on Jedis' slot cache and node pools.
 *
 * <p>Redirects are followed within the call's bound: {@code MOVED} (the slot has a new owner: the slot map is read
 * again), {@code ASK} (the slot is being migrated and this key already moved: the command is repeated on the target
 * after {@code ASKING}), {@code TRYAGAIN} (a script's keys are split across the two nodes of a migration for a
 * moment: asked again after a pause) and {@code CLUSTERDOWN}. A redirect means the command did not run, so
 * repeating it is safe; a lost connection does not say whether it ran, so it is reported as a failure at once
 * (the shared client treats the outcome as unknown), after the slot map is read again for the next call, which
 * finds a promoted replica.
 *
 * <p>Release notifications: the scripts {@code PUBLISH}, which a Redis Cluster forwards to every node, so one
 * subscriber connection to any node hears every lock's releases; when that node goes away the subscriber connects
 * to the next one the slot map knows.
 */
final class JedisClusterCommands implements RedisCommands {

    private final ClusterConnectionProvider cluster;
    private final String description;
    private final JedisSubscriber subscriber;
    private final CommandObjects commandObjects = new CommandObjects();
    /** How long one call may take, redirects and pauses included. */
    private final Duration callBound;
    private final int poolSize;
    private final AtomicInteger nextSubscriberNode = new AtomicInteger();

    /**
     * @param cluster      the slot map and a pool per node; closed with this object
     * @param clientConfig the connection settings, for the subscriber
     * @param callBound    how long one call may go on following redirects
     * @param poolSize     the most connections each node's pool opens
     */
    JedisClusterCommands(ClusterConnectionProvider cluster, JedisClientConfig clientConfig, String description,
                         Duration callBound, int poolSize) {
        this.cluster = cluster;
        this.description = description;
        this.callBound = callBound;
        this.poolSize = poolSize;
        this.subscriber = new JedisSubscriber(this::subscriberNode, clientConfig, description);
    }

    /** The pool's size less one, as on one node: each call holds one connection of its slot's primary. */
    @Override
    public int maxConcurrentCalls() {
        return Math.max(1, poolSize - 1);
    }

    @Override
    public int slotOf(String key) {
        return JedisClusterCRC16.getSlot(key);
    }

    @Override
    public Reply evalsha(String sha, List<String> keys, List<String> args, ReplicaAck ack) {
        return call(commandObjects.evalsha(sha, keys, args), keys, ack);
    }

    @Override
    public Reply eval(String script, List<String> keys, List<String> args, ReplicaAck ack) {
        return call(commandObjects.eval(script, keys, args), keys, ack);
    }

    private Reply call(CommandObject<Object> script, List<String> keys, ReplicaAck ack) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a script without keys has no slot: run it on each of primaries()");
        }
        int slot = slotOf(keys.get(0));
        long deadline = System.nanoTime() + callBound.toNanos();
        HostAndPort askedTo = null;
        RedirectBackoff backoff = new RedirectBackoff(deadline, description);
        JedisException last;
        int redirects = 0;
        while (true) {
            Connection connection;
            try {
                connection = askedTo == null ? cluster.getConnectionFromSlot(slot) : cluster.getConnection(askedTo);
            } catch (JedisException e) {
                throw storeFailure("cannot connect to the primary of slot " + slot, e);
            }
            try (connection) {
                if (askedTo != null) {
                    connection.executeCommand(new CommandObject<>(new CommandArguments(Protocol.Command.ASKING),
                            redis.clients.jedis.BuilderFactory.STRING));
                }
                Object value = connection.executeCommand(script);
                // WAIT counts the writes of its own connection, to this shard's replicas.
                int acknowledged = ack == null ? -1
                        : (int) (long) connection.executeCommand(commandObjects.waitReplicas(ack.replicas(),
                        ack.timeout().toMillis()));
                return new Reply(value, acknowledged);
            } catch (JedisNoScriptException e) {
                throw new NoScriptException(e);
            } catch (JedisMovedDataException e) {
                // The slot has another owner (a reshard finished, a replica was promoted): read the map again.
                last = e;
                askedTo = null;
                renewSlotMap(connection);
            } catch (JedisAskDataException e) {
                // The slot is migrating and the lock's keys already left: this one command goes to the target.
                last = e;
                askedTo = e.getTargetNode();
            } catch (JedisConnectionException e) {
                // Whether the script ran is unknown: not repeated here. The next call finds the promoted replica.
                renewSlotMap(null);
                throw storeFailure("connection lost to the primary of slot " + slot, e);
            } catch (JedisDataException e) {
                String message = String.valueOf(e.getMessage());
                if (!message.startsWith("TRYAGAIN") && !message.startsWith("CLUSTERDOWN")) {
                    throw storeFailure("command failed", e);
                }
                // TRYAGAIN: the keys are split between the two nodes of a migration; CLUSTERDOWN: a failover is on.
                // Neither ran the script.
                last = e;
                askedTo = null;
                if (message.startsWith("CLUSTERDOWN")) {
                    renewSlotMap(null);
                }
                backoff.pause();
            } catch (JedisException e) {
                throw storeFailure("command failed", e);
            }
            redirects++;
            if (System.nanoTime() - deadline >= 0) {
                throw storeFailure("slot " + slot + " still redirected after " + redirects + " attempts within "
                        + callBound.toMillis() + " ms", last);
            }
        }
    }

    private void renewSlotMap(Connection connection) {
        try {
            if (connection == null) {
                cluster.renewSlotCache();
            } else {
                cluster.renewSlotCache(connection);
            }
        } catch (JedisException e) {
            // The next call reads it again from whichever node answers.
        }
    }

    private LockStoreException storeFailure(String what, JedisException e) {
        return new LockStoreException(description + ": " + what + ": " + (e == null ? "" : e.getMessage()), e);
    }

    /** The primaries the slot map knows now, each running keyless scripts (a SCAN step) on its own node. */
    @Override
    public List<RedisCommands> primaries() {
        Map<String, ConnectionPool> primaries;
        try {
            primaries = cluster.getPrimaryNodesConnectionMap();
        } catch (JedisException e) {
            throw storeFailure("cannot read the cluster's primaries", e);
        }
        if (primaries.isEmpty()) {
            renewSlotMap(null);
            primaries = cluster.getPrimaryNodesConnectionMap();
        }
        List<RedisCommands> nodes = new ArrayList<>();
        primaries.forEach((address, pool) -> nodes.add(new OnePrimary(address, pool)));
        return nodes;
    }

    /** The subscriber's next node: each reconnect tries the next node of the slot map, replicas included. */
    private HostAndPort subscriberNode() {
        List<String> nodes = new ArrayList<>(cluster.getNodes().keySet());
        if (nodes.isEmpty()) {
            renewSlotMap(null);
            nodes = new ArrayList<>(cluster.getNodes().keySet());
        }
        if (nodes.isEmpty()) {
            throw new IllegalStateException(description + ": no node is known");
        }
        return HostAndPort.from(nodes.get(Math.floorMod(nextSubscriberNode.getAndIncrement(), nodes.size())));
    }

    @Override
    public AutoCloseable subscribe(String channel, Consumer<String> onMessage) {
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
            cluster.close();
        } catch (RuntimeException e) {
            throw new LockStoreException(description + ": closing the node pools failed", e);
        }
    }

    /** Keyless scripts on one primary (a SCAN walk), on a connection of that node's pool. */
    private final class OnePrimary extends OnePrimaryCommands {
        private final ConnectionPool pool;

        OnePrimary(String address, ConnectionPool pool) {
            super(description + " primary " + address);
            this.pool = pool;
        }

        @Override
        public Reply evalsha(String sha, List<String> keys, List<String> args, ReplicaAck ack) {
            return run(commandObjects.evalsha(sha, keys, args));
        }

        @Override
        public Reply eval(String script, List<String> keys, List<String> args, ReplicaAck ack) {
            return run(commandObjects.eval(script, keys, args));
        }

        private Reply run(CommandObject<Object> script) {
            try (Connection connection = pool.getResource()) {
                return new Reply(connection.executeCommand(script), -1);
            } catch (JedisNoScriptException e) {
                throw new NoScriptException(e);
            } catch (JedisException e) {
                throw new LockStoreException(describe() + ": command failed: " + e.getMessage(), e);
            }
        }
    }
}
