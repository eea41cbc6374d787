package io.locksmith.redis;

import io.locksmith.LockStoreException;

import java.time.Duration;
import java.util.List;

/**
 * The few Redis commands the lock protocol needs, on one Redis deployment (a node, a Sentinel-watched
 * primary, or a Redis Cluster, whose commands go to the primary of their keys' slot): the only part that
 * differs between Jedis and Redisson. Replies come back as Java values:
 * integers as {@link Long}, bulk strings as {@link String}, arrays as {@link List}.
 *
 * <p>Every failure to reach the server or to get an answer is a {@link LockStoreException} whose message
 * names the server (never the password).
 */
interface RedisCommands extends AutoCloseable {

    /** Ask the primary to confirm a write on {@code replicas} replicas within {@code timeout} ({@code WAIT}). */
    record ReplicaAck(int replicas, Duration timeout) {
    }

    /**
     * A script's reply, and how many replicas acknowledged it when a {@link ReplicaAck} was asked for
     * ({@code -1} otherwise).
     */
    record Reply(Object value, int replicasAcknowledged) {
    }

    /**
     * The longest one {@link #oneCall} can take whatever the server does, if this transport keeps such a limit
     * ({@link io.locksmith.spi.LockProvider#callTimeLimit()}); empty by default.
     */
    default java.util.Optional<Duration> callTimeLimit() {
        return java.util.Optional.empty();
    }

    /**
     * How many provider calls may run on this transport at once without waiting for each other inside it
     * ({@link io.locksmith.spi.LockProvider#maxConcurrentCalls()}): the default for a multiplexing transport.
     */
    default int maxConcurrentCalls() {
        return io.locksmith.spi.LockProvider.DEFAULT_MAX_CONCURRENT_CALLS;
    }

    /** Runs the commands of one provider call, under the {@link #callTimeLimit()} where there is one. */
    default <T> T oneCall(java.util.function.Supplier<T> call) {
        return call.get();
    }

    /** The server does not know the script: send its text with {@link #eval}. */
    final class NoScriptException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NoScriptException(Throwable cause) {
            super("NOSCRIPT", cause, false, false);
        }
    }

    /**
     * {@code EVALSHA}, followed by {@code WAIT} on the same connection when {@code ack} is not null.
     *
     * @throws NoScriptException  if the server does not know the script
     * @throws LockStoreException if the server cannot be reached or answers with an error
     */
    Reply evalsha(String sha, List<String> keys, List<String> args, ReplicaAck ack);

    /**
     * {@code EVAL}, which also caches the script on the server, followed by {@code WAIT} as {@link #evalsha}.
     *
     * @throws LockStoreException if the server cannot be reached or answers with an error
     */
    Reply eval(String script, List<String> keys, List<String> args, ReplicaAck ack);

    /**
     * Calls {@code onMessage} with the text of every message on {@code channel}, until the returned handle is
     * closed. All channels of one {@code RedisCommands} share one subscription connection. After that connection
     * was lost and restored, and when the server confirms a subscription late, every listener is called once with
     * {@code null}, since a message may have been missed meanwhile.
     */
    AutoCloseable subscribe(String channel, java.util.function.Consumer<String> onMessage);

    /**
     * The commands this Redis client sends on its own, besides the lock protocol's (connection set-up, health
     * checks, script loading), as words to check against the user's ACL at start ({@link RedisAcl}); none by default.
     */
    default List<List<String>> ownCommands() {
        return List.of();
    }

    /** The server for messages, e.g. {@code 127.0.0.1:6379/0 (jedis)}; never the password. */
    String describe();

    /**
     * The hash slot of {@code key} on a Redis Cluster, where the keys of one script must share one slot; 0 on a
     * deployment without slots. Scripts over the keys of several locks (batch renewal) are split by it, so that no
     * call ever meets {@code CROSSSLOT}.
     */
    default int slotOf(String key) {
        return 0;
    }

    /**
     * One {@code RedisCommands} per primary, for scripts that name no key and must see every primary's keyspace
     * (a {@code SCAN} step): this object alone on a deployment with one primary. On a Redis Cluster each runs its
     * scripts on one node and has no subscriptions; the list is the primaries known now.
     */
    default List<RedisCommands> primaries() {
        return List.of(this);
    }

    /** Closes connections and threads this object opened (not a client it was given). */
    @Override
    void close();
}
