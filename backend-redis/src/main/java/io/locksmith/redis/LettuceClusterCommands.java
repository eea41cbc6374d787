package io.locksmith.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.protocol.CommandType;
import io.locksmith.LockStoreException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * {@link RedisCommands} on a Redis Cluster over Lettuce ({@code ?client=lettuce}): each script goes to the primary
 * that serves its first key's slot (every key of a lock carries the name as hash tag, so one lock is one slot), on
 * that node's multiplexed connection, followed there by {@code WAIT}, which counts that primary's own replicas.
 * Lettuce's cluster connection follows redirects too, but sends a keyless command such as {@code WAIT} to its default
 * node, not to the script's primary; so the routing is done here, on Lettuce's slot map (its {@code Partitions}) and its node connections, and
 * the script and {@code WAIT} are handed to the node connection as {@link LettuceCommands} does on one node.
 *
 * <p>Redirects are followed within the call's bound, as {@link JedisClusterCommands} does: {@code MOVED} (the slot map
 * is read again), {@code ASK} ({@code ASKING} and the command on the target, enqueued together), {@code TRYAGAIN} and
 * {@code CLUSTERDOWN} (asked again after a pause). A redirect means the command did not run, so repeating it is
 * safe; a lost connection does not say whether it ran, so it fails at once (outcome unknown), after asking for the
 * slot map again so that the next call finds a promoted replica.
 *
 * <p>Release notifications: the scripts {@code PUBLISH}, which a Redis Cluster forwards to every node, so one
 * pub/sub connection to any node hears every release ({@link LettuceSubscriber}; Lettuce reconnects it to another
 * node of the slot map when its node goes away).
 */
final class LettuceClusterCommands implements RedisCommands {

    private final RedisClusterClient client;
    private final Supplier<StatefulRedisClusterConnection<String, String>> connector;
    private final LettuceSubscriber subscriber;
    private final Runnable shutdown;
    private final Duration callBound;
    private final String description;
    /**
     * Held while commands are handed to a node connection (see {@link LettuceCommands#send}). One lock for every
     * node: enqueueing takes microseconds, and a lock per node would need its own life cycle as nodes come and go.
     */
    private final Object writeOrder = new Object();
    private final Object connecting = new Object();
    private volatile StatefulRedisClusterConnection<String, String> connection;
    private volatile boolean closed;

    /**
     * @param connector  opens the cluster connection (reads the slot map); its failure is the store being unreachable
     * @param subscriber the release notifications, closed with this object
     * @param shutdown   shuts down the client and its resources, after the connections are closed
     * @param callBound  how long one call may go on following redirects
     */
    LettuceClusterCommands(RedisClusterClient client, Supplier<StatefulRedisClusterConnection<String, String>> connector,
                           LettuceSubscriber subscriber, Runnable shutdown, Duration callBound, String description) {
        this.client = client;
        this.connector = connector;
        this.subscriber = subscriber;
        this.shutdown = shutdown;
        this.callBound = callBound;
        this.description = description;
    }

    @Override
    public int slotOf(String key) {
        return SlotHash.getSlot(key);
    }

    @Override
    public Reply evalsha(String sha, List<String> keys, List<String> args, ReplicaAck ack) {
        return call(CommandType.EVALSHA, sha, keys, args, ack);
    }

    @Override
    public Reply eval(String script, List<String> keys, List<String> args, ReplicaAck ack) {
        return call(CommandType.EVAL, script, keys, args, ack);
    }

    private Reply call(CommandType type, String script, List<String> keys, List<String> args, ReplicaAck ack) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a script without keys has no slot: run it on each of primaries()");
        }
        StatefulRedisClusterConnection<String, String> cluster = connection();
        int slot = slotOf(keys.get(0));
        long deadline = System.nanoTime() + callBound.toNanos();
        String askedTo = null;
        RedirectBackoff backoff = new RedirectBackoff(deadline, description);
        Throwable last;
        int redirects = 0;
        while (true) {
            StatefulRedisConnection<String, String> node;
            try {
                node = askedTo == null ? primaryOf(cluster, slot) : nodeAt(cluster, askedTo);
            } catch (RuntimeException e) {
                refreshSlotMap();
                throw new LockStoreException(description + ": cannot connect to the "
                        + (askedTo == null ? "primary of slot " + slot : "node " + askedTo) + ": " + e.getMessage(), e);
            }
            try {
                return LettuceCommands.send(node, writeOrder, askedTo != null, type, script, keys, args, ack)
                        .reply(deadline);
            } catch (TimeoutException e) {
                throw new LockStoreException(description + ": no answer within " + callBound.toMillis() + " ms from the"
                        + " primary of slot " + slot, e);
            } catch (CancellationException e) {
                refreshSlotMap();
                throw new LockStoreException(description + ": command cancelled on the primary of slot " + slot, e);
            } catch (RuntimeException e) {
                // Lettuce refused to take the commands (a closed connection): nothing was sent.
                refreshSlotMap();
                throw new LockStoreException(description + ": cannot send to the primary of slot " + slot + ": "
                        + e.getMessage(), e);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                if (LettuceCommands.isNoScript(cause)) {
                    throw new NoScriptException(cause);
                }
                String message = String.valueOf(cause.getMessage());
                if (!(cause instanceof RedisCommandExecutionException)) {
                    // Not the server's answer: the connection was lost or is down (Lettuce rejects commands while
                    // it reconnects). Whether the script ran is unknown, so it is not repeated here; the slot map is
                    // read again for the next call, which finds a promoted replica.
                    refreshSlotMap();
                    throw new LockStoreException(description + ": connection lost to the primary of slot " + slot
                            + ": " + message, cause);
                }
                last = cause;
                if (message.startsWith("MOVED")) {
                    // The slot has another owner (a reshard finished, a replica was promoted): read the map again.
                    askedTo = null;
                    refreshSlotMapNow();
                } else if (message.startsWith("ASK")) {
                    // The slot is migrating and the lock's keys already left: this one command goes to the target.
                    askedTo = target(message);
                } else if (message.startsWith("TRYAGAIN") || message.startsWith("CLUSTERDOWN")) {
                    // TRYAGAIN: the keys are split between the two nodes of a migration; CLUSTERDOWN: a failover is
                    // on. Neither ran the script. There is no event for their end: asked again after a pause.
                    askedTo = null;
                    if (message.startsWith("CLUSTERDOWN")) {
                        refreshSlotMap();
                    }
                    backoff.pause();
                } else {
                    throw new LockStoreException(description + ": command failed: " + message, cause);
                }
            }
            redirects++;
            if (System.nanoTime() - deadline >= 0) {
                throw new LockStoreException(description + ": slot " + slot + " still redirected after " + redirects
                        + " attempts within " + callBound.toMillis() + " ms: " + last.getMessage(), last);
            }
        }
    }

    /** The cluster connection, opened now if it is not yet (a failed attempt is tried again at the next call). */
    private StatefulRedisClusterConnection<String, String> connection() {
        StatefulRedisClusterConnection<String, String> open = connection;
        if (open != null) {
            return open;
        }
        synchronized (connecting) {
            if (closed) {
                throw new LockStoreException(description + " is closed", null);
            }
            if (connection == null) {
                try {
                    connection = connector.get();
                } catch (RuntimeException e) {
                    throw new LockStoreException(description + ": cannot read the cluster's slot map: " + e.getMessage()
                            + Causes.rootCause(e), e);
                }
            }
            return connection;
        }
    }

    /** The connection to the primary that the slot map names for {@code slot}, opened by Lettuce if need be. */
    private StatefulRedisConnection<String, String> primaryOf(StatefulRedisClusterConnection<String, String> cluster,
                                                              int slot) {
        RedisClusterNode primary = cluster.getPartitions().getPartitionBySlot(slot);
        if (primary == null) {
            throw new IllegalStateException("no primary serves slot " + slot);
        }
        return cluster.getConnection(primary.getNodeId());
    }

    /** The connection to the node at {@code address} ({@code host:port}, as an {@code ASK} names it). */
    private static StatefulRedisConnection<String, String> nodeAt(StatefulRedisClusterConnection<String, String> cluster,
                                                                  String address) {
        int colon = address.lastIndexOf(':');
        return cluster.getConnection(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    }

    /** The address of {@code ASK <slot> <host:port>}. */
    private static String target(String ask) {
        String[] parts = ask.trim().split(" ");
        return parts[parts.length - 1];
    }

    /** Reads the slot map again before the next attempt: a redirect's retry must see the new owner. */
    private void refreshSlotMapNow() {
        try {
            client.refreshPartitions();
        } catch (RuntimeException e) {
            // The next attempt is redirected again, or the periodic refresh catches up.
        }
    }

    /** Asks for the slot map without waiting: the call fails anyway, the next one should find the new owner. */
    private void refreshSlotMap() {
        try {
            client.refreshPartitionsAsync();
        } catch (RuntimeException e) {
            // The periodic refresh catches up.
        }
    }

    /** The primaries the slot map knows now, each running keyless scripts (a SCAN step) on its own node. */
    @Override
    public List<RedisCommands> primaries() {
        StatefulRedisClusterConnection<String, String> cluster = connection();
        List<RedisCommands> nodes = new ArrayList<>();
        for (RedisClusterNode node : cluster.getPartitions()) {
            if (node.getRole().isUpstream() && !node.getSlots().isEmpty() && !node.is(RedisClusterNode.NodeFlag.FAIL)) {
                nodes.add(new OnePrimary(cluster, node));
            }
        }
        if (nodes.isEmpty()) {
            throw new LockStoreException(description + ": the slot map names no primary", null);
        }
        return nodes;
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
        StatefulRedisClusterConnection<String, String> open;
        synchronized (connecting) {
            closed = true;
            open = connection;
        }
        // Closing the cluster connection closes the node connections it opened for the primaries.
        LettuceTransports.close(description, subscriber, open, shutdown);
    }

    /** Keyless scripts on one primary (a SCAN walk), on the cluster connection's connection to that node. */
    private final class OnePrimary extends OnePrimaryCommands {
        private final StatefulRedisClusterConnection<String, String> cluster;
        private final String nodeId;

        OnePrimary(StatefulRedisClusterConnection<String, String> cluster, RedisClusterNode node) {
            super(description + " primary " + node.getUri().getHost() + ":" + node.getUri().getPort());
            this.cluster = cluster;
            this.nodeId = node.getNodeId();
        }

        @Override
        public Reply evalsha(String sha, List<String> keys, List<String> args, ReplicaAck ack) {
            return run(CommandType.EVALSHA, sha, keys, args);
        }

        @Override
        public Reply eval(String script, List<String> keys, List<String> args, ReplicaAck ack) {
            return run(CommandType.EVAL, script, keys, args);
        }

        private Reply run(CommandType type, String script, List<String> keys, List<String> args) {
            long deadline = System.nanoTime() + callBound.toNanos();
            try {
                StatefulRedisConnection<String, String> node = cluster.getConnection(nodeId);
                return LettuceCommands.send(node, writeOrder, false, type, script, keys, args, null).reply(deadline);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                if (LettuceCommands.isNoScript(cause)) {
                    throw new NoScriptException(cause);
                }
                throw new LockStoreException(describe() + ": command failed: " + cause.getMessage(), cause);
            } catch (TimeoutException e) {
                throw new LockStoreException(describe() + ": no answer within " + callBound.toMillis() + " ms", e);
            } catch (RuntimeException e) {
                throw new LockStoreException(describe() + ": command failed: " + e.getMessage(), e);
            }
        }
    }
}
