package io.locksmith.tck.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy between a client and a store server on loopback, for fault tests where {@code tc netem}
 * and Docker are not available. Point the client at {@link #port()}; the proxy forwards to the server
 * until told to misbehave:
 * <ul>
 * <li>{@link #blackhole()}: bytes are swallowed in both directions and nothing is closed, as on a network
 *     partition where packets vanish (no RST): the client only learns of it from its own time-outs;</li>
 * <li>{@link #resetAll()}: every open connection is reset (RST), as when a middlebox or the server's host drops them;</li>
 * <li>{@link #delay(Duration)}: every chunk is forwarded late;</li>
 * <li>{@link #dropNextReplies(int)}: the server's next replies are swallowed after the requests were forwarded:
 *     the request took effect, but the client never hears so (the ambiguous acquire).</li>
 * </ul>
 * {@link #heal()} returns to plain forwarding. Uses two threads per connection: a test tool, not a product.
 */
public final class TcpProxy implements AutoCloseable {

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicLong delayNanos = new AtomicLong();
    private final AtomicInteger repliesToDrop = new AtomicInteger();
    private final AtomicLong forwardedChunks = new AtomicLong();
    private final AtomicLong droppedReplies = new AtomicLong();
    private volatile boolean blackholed;
    private volatile boolean closed;

    private TcpProxy(String targetHost, int targetPort, ServerSocket listener) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = listener;
    }

    /**
     * Starts a proxy on a free loopback port forwarding to {@code targetHost:targetPort}.
     *
     * @throws UncheckedIOException if no port can be opened
     */
    public static TcpProxy start(String targetHost, int targetPort) {
        try {
            ServerSocket listener = new ServerSocket();
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            TcpProxy proxy = new TcpProxy(targetHost, targetPort, listener);
            Thread acceptor = new Thread(proxy::acceptLoop, "tcp-proxy-accept-" + listener.getLocalPort());
            acceptor.setDaemon(true);
            acceptor.start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a proxy port", e);
        }
    }

    /** The loopback port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** Swallows all bytes in both directions from now on, closing nothing (no RST, no FIN). */
    public void blackhole() {
        blackholed = true;
    }

    /** Adds {@code delay} before every forwarded chunk; {@link Duration#ZERO} removes it. */
    public void delay(Duration delay) {
        delayNanos.set(delay.toNanos());
    }

    /** Swallows the next {@code count} chunks from the server after their requests were forwarded. */
    public void dropNextReplies(int count) {
        repliesToDrop.set(count);
    }

    /** Resets every open connection (RST). New connections are accepted as before. */
    public void resetAll() {
        for (Socket socket : sockets) {
            try {
                socket.setSoLinger(true, 0);
                socket.close();
            } catch (IOException ignored) {
                // already gone
            }
        }
        sockets.clear();
    }

    /** Back to plain forwarding: no blackhole, no delay, no dropped replies. */
    public void heal() {
        blackholed = false;
        delayNanos.set(0);
        repliesToDrop.set(0);
    }

    /** How many chunks were forwarded so far (either direction): lets a test wait for traffic. */
    public long forwardedChunks() {
        return forwardedChunks.get();
    }

    /** How many reply chunks {@link #dropNextReplies(int)} swallowed so far: lets a test check the fault happened. */
    public long droppedReplies() {
        return droppedReplies.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            Socket server = new Socket();
            try {
                server.connect(new InetSocketAddress(targetHost, targetPort), 2000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
            } catch (IOException e) {
                // The server is down: the client sees its connection closed, as it would without the proxy.
                closeQuietly(client);
                closeQuietly(server);
                continue;
            }
            // Registered under the lock close() takes: a connection accepted while the proxy closes is either reset
            // by close() or dropped here, never left forwarding past close() (a store "gone" that still answered).
            synchronized (this) {
                if (closed) {
                    closeQuietly(client);
                    closeQuietly(server);
                    return;
                }
                sockets.add(client);
                sockets.add(server);
            }
            pump(client, server, false);
            pump(server, client, true);
        }
    }

    private void pump(Socket from, Socket to, boolean isReply) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    if (blackholed) {
                        continue;
                    }
                    long delay = delayNanos.get();
                    if (delay > 0) {
                        TimeUnit.NANOSECONDS.sleep(delay); // the fault itself: a slow network
                    }
                    if (isReply && repliesToDrop.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                        droppedReplies.incrementAndGet();
                        continue;
                    }
                    out.write(buffer, 0, read);
                    out.flush();
                    forwardedChunks.incrementAndGet();
                }
            } catch (SocketException e) {
                // reset or closed: the other side goes too
            } catch (IOException e) {
                // same
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (!blackholed) {
                    closeQuietly(from);
                    closeQuietly(to);
                }
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "tcp-proxy-" + (isReply ? "reply-" : "request-") + port());
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    /** Stops accepting and closes every connection. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        resetAll();
    }

    @Override
    public String toString() {
        return "TcpProxy[127.0.0.1:" + port() + " -> " + targetHost + ":" + targetPort
                + (blackholed ? ", blackholed" : "") + "]";
    }
}
