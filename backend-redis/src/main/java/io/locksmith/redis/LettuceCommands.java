package io.locksmith.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.locksmith.LockStoreException;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * {@link RedisCommands} over Lettuce ({@code ?client=lettuce}): every command of every thread on one multiplexed
 * connection (to one node, or to the primary a Sentinel group names, followed across failovers), release
 * notifications on one pub/sub connection ({@link LettuceSubscriber}). The connection is opened at the first
 * command and again after a failed attempt, so a RedLock node that is down when the provider is created is used
 * as soon as it answers; once open, Lettuce reconnects it on its own.
 */
final class LettuceCommands implements RedisCommands {

    private static final StringCodec CODEC = StringCodec.UTF8;
    /** How long the check for a refused connection waits for a TCP connect: loopback or LAN answers a refusal at once. */
    private static final int REFUSAL_CHECK_MILLIS = 250;

    private final Supplier<StatefulRedisConnection<String, String>> connector;
    private final LettuceSubscriber subscriber;
    private final Runnable shutdown;
    private final InetSocketAddress server;
    private final Duration commandTimeout;
    private final String description;
    /** Guards opening {@link #connection}. */
    private final Object connecting = new Object();
    /**
     * Held while commands are handed to the connection, never while their replies are awaited. {@code WAIT} counts
     * the writes of its connection, so it must follow its script with no other write between; Lettuce hands each
     * command of a batch to Netty one by one, and another thread's command dispatched meanwhile could land between
     * them (a {@code WAIT} after somebody else's read would count the wrong offset). Enqueueing takes microseconds.
     */
    private final Object writeOrder = new Object();
    private volatile StatefulRedisConnection<String, String> connection;
    private volatile boolean closed;

    /**
     * @param connector  opens the command connection; its failure is reported as the store being unreachable
     * @param subscriber the release notifications, closed with this object
     * @param shutdown   shuts down the client and its resources, after the connections are closed
     * @param server     where a refused connection is looked for after a lost connection; null to not look (Sentinel:
     *                   the primary changes)
     */
    LettuceCommands(Supplier<StatefulRedisConnection<String, String>> connector, LettuceSubscriber subscriber,
                    Runnable shutdown, InetSocketAddress server, Duration commandTimeout, String description) {
        this.connector = connector;
        this.subscriber = subscriber;
        this.shutdown = shutdown;
        this.server = server;
        this.commandTimeout = commandTimeout;
        this.description = description;
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
        StatefulRedisConnection<String, String> open = connection();
        long deadline = System.nanoTime() + commandTimeout.toNanos();
        Sent sent = send(open, writeOrder, false, type, script, keys, args, ack);
        try {
            return sent.reply(deadline);
        } catch (TimeoutException e) {
            discard(open);
            throw new LockStoreException(description + ": no answer within " + commandTimeout.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            throw failure(e.getCause() == null ? e : e.getCause(), open);
        } catch (CancellationException e) {
            throw failure(e, open);
        }
    }

    /** A script, and the {@code WAIT} behind it when one was asked for, handed to one connection. */
    record Sent(AsyncCommand<String, String, Object> script, AsyncCommand<String, String, Long> waitReplicas) {

        /**
         * The script's reply and the replicas' count: the first failure of either as its {@link ExecutionException}
         * (the caller tells a redirect from an outage), or a {@link TimeoutException} once {@code deadline} passed.
         */
        Reply reply(long deadline) throws ExecutionException, TimeoutException {
            Object value = await(script, deadline);
            int acknowledged = waitReplicas == null ? -1 : (int) (long) await(waitReplicas, deadline);
            return new Reply(value, acknowledged);
        }
    }

    /**
     * Hands a script (after {@code ASKING} when {@code asking}, for an {@code ASK} redirect of a Redis Cluster) and
     * its {@code WAIT} to {@code connection} under {@code writeOrder}, so that no other thread's command lands
     * between them: {@code ASKING} holds for the next command of its connection only, and {@code WAIT} counts the
     * writes of its connection. Enqueueing takes microseconds; the replies are awaited outside the lock.
     */
    static Sent send(StatefulRedisConnection<String, String> connection, Object writeOrder, boolean asking,
                     CommandType type, String script, List<String> keys, List<String> args, ReplicaAck ack) {
        CommandArgs<String, String> scriptArgs = new CommandArgs<>(CODEC).add(script).add(keys.size())
                .addKeys(keys).addValues(args);
        AsyncCommand<String, String, Object> command = new AsyncCommand<>(new Command<>(type, new ReplyOutput(), scriptArgs));
        AsyncCommand<String, String, Long> waitReplicas = ack == null ? null
                : new AsyncCommand<>(new Command<>(CommandType.WAIT, new IntegerOutput<>(CODEC),
                new CommandArgs<>(CODEC).add(ack.replicas()).add(ack.timeout().toMillis())));
        List<AsyncCommand<String, String, ?>> batch = new ArrayList<>(3);
        if (asking) {
            batch.add(new AsyncCommand<>(new Command<>(CommandType.ASKING, new StatusOutput<>(CODEC))));
        }
        batch.add(command);
        if (waitReplicas != null) {
            batch.add(waitReplicas);
        }
        synchronized (writeOrder) {
            if (batch.size() == 1) {
                connection.dispatch(command);
            } else {
                connection.dispatch(batch);
            }
        }
        return new Sent(command, waitReplicas);
    }

    /** Whether a command's failure is the server not knowing the script. */
    static boolean isNoScript(Throwable cause) {
        return cause instanceof RedisNoScriptException
                || (cause instanceof RedisCommandExecutionException && String.valueOf(cause.getMessage()).startsWith("NOSCRIPT"));
    }

    /** The command connection, opened now if it is not yet (a failed attempt is tried again at the next call). */
    private StatefulRedisConnection<String, String> connection() {
        StatefulRedisConnection<String, String> open = connection;
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
                    // Lettuce's RedisConnectionException keeps the ConnectException of a refused connection.
                    throw new LockStoreException(description + ": cannot connect: " + e.getMessage() + Causes.rootCause(e), e);
                }
            }
            return connection;
        }
    }

    /**
     * Drops a connection whose command went unanswered, as Jedis drops a connection that timed out: Lettuce pairs
     * replies with commands in order, and a connection that went silent without being reset (a proxy or network that
     * swallows packets) stays open with requests that will never be answered ahead of every new one, so it would
     * never answer again (TCK R7.7: a bounded wait must ride out such a blip). The next call opens a new one; calls
     * in flight on the old one fail as store errors, whose outcome the shared client treats as unknown.
     */
    private void discard(StatefulRedisConnection<String, String> broken) {
        synchronized (connecting) {
            if (connection == broken) {
                connection = null;
            }
        }
        broken.closeAsync();
    }

    /**
     * The command's reply. An interrupt does not end the wait: as Jedis' blocking socket read, the call ends by its
     * reply or its time-out and the flag is restored then, since a release cut short would leave the key behind for
     * its lease's lifetime (TCK R1.5). A command whose time is up is cancelled, so its late reply is dropped.
     */
    private static <T> T await(AsyncCommand<String, String, T> command, long deadline)
            throws ExecutionException, TimeoutException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return command.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (TimeoutException e) {
            command.cancel(true);
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private RuntimeException failure(Throwable cause, StatefulRedisConnection<String, String> open) {
        if (isNoScript(cause)) {
            return new NoScriptException(cause);
        }
        if (cause instanceof RedisCommandTimeoutException) {
            discard(open);
            return new LockStoreException(description + ": no answer within " + commandTimeout.toMillis() + " ms: "
                    + cause.getMessage(), cause);
        }
        if (!(cause instanceof RedisCommandExecutionException) && !open.isOpen()) {
            // While disconnected, Lettuce rejects commands ("Currently not connected") without saying why: a server
            // that refuses connections is an outage the shared client must learn of from a ConnectException in the
            // cause chain (SPEC R9.14), rather than ride out every call to its bound.
            ConnectException refused = refusal();
            if (refused != null) {
                LockStoreException down = new LockStoreException(description + ": not connected, and the server refuses"
                        + " connections: " + refused.getMessage(), refused);
                down.addSuppressed(cause);
                return down;
            }
        }
        return new LockStoreException(description + ": command failed: " + cause.getMessage(), cause);
    }

    /** The refusal of a TCP connect to the server, or null if it accepts, cannot be checked, or does not answer. */
    private ConnectException refusal() {
        if (server == null) {
            return null;
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(server.getHostString(), server.getPort()), REFUSAL_CHECK_MILLIS);
            return null;
        } catch (ConnectException e) {
            return e;
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public AutoCloseable subscribe(String channel, Consumer<String> onMessage) {
        return subscriber.subscribe(channel, onMessage);
    }

    /** Lettuce names each connection ({@code CLIENT SETNAME locksmith}). */
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
        StatefulRedisConnection<String, String> open;
        synchronized (connecting) {
            closed = true;
            open = connection;
        }
        LettuceTransports.close(description, subscriber, open, shutdown);
    }

    /**
     * A script's reply as the other transports return it: integers as {@link Long}, bulk and status strings as
     * {@link String}, nil as {@code null}, arrays as (nested) {@link List}s. Lettuce's own script outputs wrap a
     * top-level integer in a list ({@code MULTI}) or cannot hold an array ({@code VALUE}).
     */
    static final class ReplyOutput extends CommandOutput<String, String, Object> {

        /** The arrays being filled, innermost first, each with how many elements it still expects. */
        private final Deque<OpenArray> open = new ArrayDeque<>();

        private record OpenArray(List<Object> elements, int[] remaining) {
        }

        ReplyOutput() {
            super(CODEC, null);
        }

        @Override
        public void set(ByteBuffer bytes) {
            add(bytes == null ? null : CODEC.decodeValue(bytes));
        }

        @Override
        public void setSingle(ByteBuffer bytes) {
            add(bytes == null ? null : CODEC.decodeValue(bytes));
        }

        @Override
        public void set(long integer) {
            add(integer);
        }

        @Override
        public void set(double number) {
            add(number);
        }

        @Override
        public void set(boolean value) {
            add(value ? 1L : null); // RESP3 booleans as RESP2 shows Lua's true and false
        }

        @Override
        public void multi(int count) {
            if (count < 0) {
                add(null);
                return;
            }
            List<Object> elements = new ArrayList<>(count);
            if (count == 0) {
                add(elements);
                return;
            }
            if (open.isEmpty()) {
                output = elements;
            } else {
                OpenArray parent = open.peek();
                parent.elements().add(elements);
                parent.remaining()[0]--; // the parent closes after this array does (see add)
            }
            open.push(new OpenArray(elements, new int[] {count}));
        }

        private void add(Object value) {
            if (open.isEmpty()) {
                output = value;
                return;
            }
            OpenArray current = open.peek();
            current.elements().add(value);
            current.remaining()[0]--;
            while (!open.isEmpty() && open.peek().remaining()[0] == 0) {
                open.pop();
            }
        }
    }
}
