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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 *     the request took effect, but the client never hears so (the ambiguous acquire);</li>
 * <li>{@link #holdRequests()} and {@link #holdRequestsAfterNextReply()}: the client's requests are kept back, in
 *     order, until {@link #releaseRequests()} delivers them to the server, however late and even if the client has
 *     given up and closed its connection meanwhile, as a network delivers a delayed segment: the tool for running
 *     another client's operation between two steps of a provider's work (a check and the write that trusts it).</li>
 * </ul>
 * {@link #heal()} returns to plain forwarding. Uses two threads per connection: a test tool, not a product.
 */
public final class TcpProxy implements AutoCloseable {

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket listener;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicLong delayNanos = new AtomicLong();
    private final AtomicInteger repliesToDrop = new AtomicInteger();
    private final AtomicLong forwardedChunks = new AtomicLong();
    private final AtomicLong droppedReplies = new AtomicLong();
    private final AtomicLong heldRequests = new AtomicLong();
    private final AtomicBoolean holdAfterNextReply = new AtomicBoolean();
    /** Counts the calls of {@link #holdRequestsAfterNextReply()}: a reply triggers only on a connection that asked since. */
    private final AtomicLong armedAt = new AtomicLong();
    /** Run when the armed trigger fires, before the reply is forwarded: the other proxies of a group hold too. */
    private volatile Runnable whenHolding;
    /** Guards {@link #held} and each link's count of held chunks. */
    private final Object holdLock = new Object();
    /** Request chunks kept back, in the order they were sent, across connections. */
    private final List<Held> held = new ArrayList<>();
    private volatile boolean holdingRequests;
    private volatile boolean blackholed;
    private volatile boolean closed;

    private TcpProxy(String targetHost, int targetPort, ServerSocket listener) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = listener;
    }

    /**
     * Starts a proxy on a free port of the loopback address {@code 127.0.0.1} forwarding to {@code targetHost:targetPort}.
     *
     * @throws UncheckedIOException if no port can be opened
     */
    public static TcpProxy start(String targetHost, int targetPort) {
        return start(InetAddress.getLoopbackAddress().getHostAddress(), targetHost, targetPort);
    }

    /**
     * Starts a proxy on a free port of {@code bindHost}, forwarding to {@code targetHost:targetPort}: for a deployment
     * whose members (and so their proxies) each have their own loopback address ({@link LoopbackAddresses}), so that a
     * client, a firewall rule or a log tells them apart by address.
     *
     * @throws UncheckedIOException if no port can be opened on {@code bindHost}
     */
    public static TcpProxy start(String bindHost, String targetHost, int targetPort) {
        Objects.requireNonNull(bindHost, "bindHost cannot be null");
        Objects.requireNonNull(targetHost, "targetHost cannot be null");
        try {
            ServerSocket listener = new ServerSocket();
            listener.bind(new InetSocketAddress(InetAddress.getByName(bindHost), 0));
            TcpProxy proxy = new TcpProxy(targetHost, targetPort, listener);
            Thread acceptor = new Thread(proxy::acceptLoop, "tcp-proxy-accept-" + listener.getLocalPort());
            acceptor.setDaemon(true);
            acceptor.start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a proxy port on " + bindHost, e);
        }
    }

    /** The port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** The address clients connect to, {@code host:port} (the host is {@code 127.0.0.1} unless started on another). */
    public String address() {
        return listener.getInetAddress().getHostAddress() + ":" + port();
    }

    /** The {@code host:port} this proxy forwards to. */
    public String target() {
        return targetHost + ":" + targetPort;
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

    /**
     * Keeps back every request chunk from now on, on every connection, new ones included, until
     * {@link #releaseRequests()}. Replies already on their way still reach the client.
     */
    public void holdRequests() {
        holdAfterNextReply.set(false);
        holdingRequests = true;
    }

    /**
     * Lets the next exchange through, and keeps back every request chunk the clients send after its reply (as
     * {@link #holdRequests()}): what a provider sends once it has the answer to its first request, such as the write
     * of a "check, then write" done in two commands, stays back until {@link #releaseRequests()}. The next exchange is
     * the first reply on a connection that sent a request after this call: a message the server pushes unasked (a
     * pub/sub message, an answer to an earlier request) does not count. The switch is made before that reply is
     * forwarded, so no request the client sends in answer to it can slip through.
     */
    public void holdRequestsAfterNextReply() {
        holdRequestsAfterNextReply(null);
    }

    /** As {@link #holdRequestsAfterNextReply()}, running {@code whenHolding} (if not null) when the switch is made. */
    void holdRequestsAfterNextReply(Runnable whenHolding) {
        this.whenHolding = whenHolding;
        armedAt.incrementAndGet();
        holdAfterNextReply.set(true);
    }

    /**
     * Delivers every request chunk kept back so far to the server, in the order they were sent, then forwards as
     * before. A connection whose client closed while its requests were held is closed after the server answered
     * them (or when the proxy closes).
     */
    public void releaseRequests() {
        holdAfterNextReply.set(false);
        synchronized (holdLock) {
            holdingRequests = false;
            // In the order they were sent, across connections: a network delivers delayed segments of several
            // connections in about the order they left.
            for (Held chunk : held) {
                chunk.link.deliver(chunk.bytes);
            }
            for (Held chunk : held) {
                chunk.link.heldCount = 0;
            }
            held.clear();
        }
    }

    /** Resets every open connection (RST). New connections are accepted as before. */
    public void resetAll() {
        for (Link link : links) {
            link.reset();
        }
    }

    /**
     * Back to plain forwarding: no blackhole, no delay, no dropped replies, and requests kept back are delivered
     * ({@link #releaseRequests()}).
     */
    public void heal() {
        blackholed = false;
        delayNanos.set(0);
        repliesToDrop.set(0);
        releaseRequests();
    }

    /** How many chunks were forwarded so far (either direction): lets a test wait for traffic. */
    public long forwardedChunks() {
        return forwardedChunks.get();
    }

    /** How many reply chunks {@link #dropNextReplies(int)} swallowed so far: lets a test check the fault happened. */
    public long droppedReplies() {
        return droppedReplies.get();
    }

    /** How many request chunks were kept back so far (released or not): lets a test wait for the held step. */
    public long heldRequests() {
        return heldRequests.get();
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
            Link link = new Link(client, server);
            // Registered under the lock close() takes: a connection accepted while the proxy closes is either reset
            // by close() or dropped here, never left forwarding past close() (a store "gone" that still answered).
            synchronized (this) {
                if (closed) {
                    closeQuietly(client);
                    closeQuietly(server);
                    return;
                }
                links.add(link);
            }
            pump(link, false);
            pump(link, true);
        }
    }

    private void pump(Link link, boolean isReply) {
        Socket from = isReply ? link.server : link.client;
        Socket to = isReply ? link.client : link.server;
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            boolean keepServer = false;
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    if (blackholed) {
                        continue;
                    }
                    long delay = delayNanos.get();
                    if (delay > 0) {
                        TimeUnit.NANOSECONDS.sleep(delay); // the fault itself: a slow network
                    }
                    if (isReply) {
                        if (repliesToDrop.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                            droppedReplies.incrementAndGet();
                            continue;
                        }
                        if (link.askedAt == armedAt.get() && holdAfterNextReply.compareAndSet(true, false)) {
                            holdingRequests = true; // before the client can read the reply and answer it
                            Runnable group = whenHolding;
                            if (group != null) {
                                group.run();
                            }
                        }
                        out.write(buffer, 0, read);
                        out.flush();
                        forwardedChunks.incrementAndGet();
                    } else {
                        link.forwardRequest(buffer, read);
                    }
                }
            } catch (SocketException e) {
                // reset or closed: the other side goes too
            } catch (IOException e) {
                // same
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                // A client that gave up while its requests were held: the server still gets them at the release.
                keepServer = !isReply && link.keepForHeldRequests();
                if (!blackholed && !keepServer) {
                    link.close();
                }
            }
        }, "tcp-proxy-" + (isReply ? "reply-" : "request-") + port());
        thread.setDaemon(true);
        thread.start();
    }

    /** A request chunk kept back, with the connection it goes to. */
    private record Held(Link link, byte[] bytes) {
    }

    /** One accepted connection and the one it opened to the server. */
    private final class Link {
        final Socket client;
        final Socket server;
        /** How many of {@link #held} are this connection's; guarded by holdLock. */
        int heldCount;
        /** The client closed while requests were held: close the server side once they were answered. */
        private volatile boolean clientGone;
        /** The value of armedAt when this connection last forwarded a request. */
        volatile long askedAt = -1;

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        /**
         * Forwards a request chunk, or keeps it back (behind this connection's earlier held ones). Only this
         * connection's request pump calls it, so a direct write never overlaps another of the same connection; a
         * release writes only chunks that were held, which no direct write follows before they are delivered.
         */
        void forwardRequest(byte[] buffer, int length) throws IOException {
            synchronized (holdLock) {
                if (holdingRequests || heldCount > 0) {
                    held.add(new Held(this, Arrays.copyOf(buffer, length)));
                    heldCount++;
                    heldRequests.incrementAndGet();
                    return;
                }
            }
            askedAt = armedAt.get();
            OutputStream out = server.getOutputStream();
            out.write(buffer, 0, length);
            out.flush();
            forwardedChunks.incrementAndGet();
        }

        /** Whether the server side must stay open for held requests after the client's side ended. */
        boolean keepForHeldRequests() {
            synchronized (holdLock) {
                if (heldCount == 0 || closed) {
                    return false;
                }
                clientGone = true;
                return true;
            }
        }

        /** Writes a released chunk; called under holdLock. */
        void deliver(byte[] bytes) {
            try {
                OutputStream out = server.getOutputStream();
                out.write(bytes);
                out.flush();
                forwardedChunks.incrementAndGet();
            } catch (IOException e) {
                close(); // the server went away meanwhile: what it was sent is lost with it
            }
            // A client that is gone cannot read the answers: the reply pump fails on them and closes the link.
        }

        void reset() {
            for (Socket socket : List.of(client, server)) {
                try {
                    socket.setSoLinger(true, 0);
                    socket.close();
                } catch (IOException ignored) {
                    // already gone
                }
            }
            links.remove(this);
        }

        void close() {
            closeQuietly(client);
            closeQuietly(server);
            links.remove(this);
        }

        @Override
        public String toString() {
            return "Link[" + client.getPort() + (clientGone ? " (client gone)" : "") + "]";
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    /** Stops accepting and closes every connection; requests still held are dropped. */
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
        return "TcpProxy[" + address() + " -> " + targetHost + ":" + targetPort
                + (blackholed ? ", blackholed" : "") + (holdingRequests ? ", holding requests" : "") + "]";
    }
}
