package io.locksmith.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy in front of redis-server that counts the commands clients send it. Redis's own
 * counters cannot tell requests apart: {@code total_commands_processed} and {@code INFO commandstats} also
 * count every command a Lua script runs, so one script renewing 1,000 locks would look like 1,000 requests
 * and a script renewing one lock like two. The proxy counts what crosses the network instead: each RESP
 * command array the client sends, pipelined or not. Used only in the renewal scenario, where latency does not
 * matter. Two threads per connection: a measuring tool, not a product.
 */
final class RedisRequestCounter implements AutoCloseable {

    private final int targetPort;
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicLong requests = new AtomicLong();
    private volatile boolean closed;

    private RedisRequestCounter(int targetPort, ServerSocket listener) {
        this.targetPort = targetPort;
        this.listener = listener;
    }

    static RedisRequestCounter start(int targetPort) {
        try {
            ServerSocket listener = new ServerSocket();
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            RedisRequestCounter counter = new RedisRequestCounter(targetPort, listener);
            Thread acceptor = new Thread(counter::acceptLoop, "bench-redis-counter-accept");
            acceptor.setDaemon(true);
            acceptor.start();
            return counter;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the Redis request counter", e);
        }
    }

    /** Where clients connect instead of redis-server. */
    int port() {
        return listener.getLocalPort();
    }

    /** Commands sent by clients through this proxy so far. */
    long requests() {
        return requests.get();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                RespCommandCounter parser = new RespCommandCounter();
                pump(client, server, parser, "up");
                pump(server, client, null, "down");
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("Redis request counter: " + e);
                }
            }
        }
    }

    private void pump(Socket from, Socket to, RespCommandCounter parser, String direction) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    if (parser != null) {
                        requests.addAndGet(parser.feed(buffer, n));
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // a side closed: close the other one too
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "bench-redis-counter-" + direction);
        thread.setDaemon(true);
        thread.start();
    }

    private void closeQuietly(Socket socket) {
        sockets.remove(socket);
        try {
            socket.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        sockets.forEach(this::closeQuietly);
    }

    /**
     * Counts complete RESP commands in a client's byte stream, fed in arbitrary chunks: an array header
     * {@code *N\r\n} followed by N bulk strings {@code $len\r\n<len bytes>\r\n}. An inline command (a line
     * without {@code *}) counts as one.
     */
    static final class RespCommandCounter {
        private enum State { START, ARRAY_LENGTH, BULK_HEADER, BULK_LENGTH, BULK_BODY, INLINE }

        private State state = State.START;
        private long number;
        private long elementsLeft;
        private long bodyLeft;

        /** Feeds {@code length} bytes and returns how many commands they completed. */
        int feed(byte[] bytes, int length) {
            int completed = 0;
            for (int i = 0; i < length; i++) {
                byte b = bytes[i];
                switch (state) {
                    case START -> {
                        if (b == '*') {
                            state = State.ARRAY_LENGTH;
                            number = 0;
                        } else if (b != '\r' && b != '\n') {
                            state = State.INLINE;
                        }
                    }
                    case INLINE -> {
                        if (b == '\n') {
                            completed++;
                            state = State.START;
                        }
                    }
                    case ARRAY_LENGTH -> {
                        if (b >= '0' && b <= '9') {
                            number = number * 10 + (b - '0');
                        } else if (b == '\n') {
                            elementsLeft = number;
                            if (elementsLeft <= 0) {
                                completed++;
                                state = State.START;
                            } else {
                                state = State.BULK_HEADER;
                            }
                        }
                    }
                    case BULK_HEADER -> {
                        if (b == '$') {
                            state = State.BULK_LENGTH;
                            number = 0;
                        }
                    }
                    case BULK_LENGTH -> {
                        if (b >= '0' && b <= '9') {
                            number = number * 10 + (b - '0');
                        } else if (b == '\n') {
                            bodyLeft = number + 2; // the bytes and their \r\n
                            state = State.BULK_BODY;
                        }
                    }
                    case BULK_BODY -> {
                        long skip = Math.min(bodyLeft, length - i);
                        bodyLeft -= skip;
                        i += (int) skip - 1;
                        if (bodyLeft == 0) {
                            elementsLeft--;
                            if (elementsLeft == 0) {
                                completed++;
                                state = State.START;
                            } else {
                                state = State.BULK_HEADER;
                            }
                        }
                    }
                }
            }
            return completed;
        }
    }
}
