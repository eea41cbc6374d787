package io.locksmith.bench;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A loopback TCP proxy that delays every byte by a fixed one-way latency in each direction, as a data-centre network
 * would (the bench's {@code --network-delay}): {@code tc netem} is not available in this kernel.
 *
 * <p>Why not the kit's {@code TcpProxy.delay}: it sleeps in the thread that reads, before forwarding the chunk it read,
 * so chunks that arrive back to back wait for each other's delays (a pipelined client's second request arrives
 * {@code 2 × delay} late), and on Java 17 its {@code TimeUnit.NANOSECONDS.sleep(100 µs)} is a
 * {@code Thread.sleep(0, 100_000)}, which rounds up to a whole millisecond: measured here, a PING through it takes
 * 2.3 ms instead of 0.2 ms ({@link NetworkCheck}). A fault tool, not a network. Here each direction of a connection is a delay line: one thread
 * reads and stamps each chunk with the time it arrived, another writes it when that time plus the latency is due,
 * so chunks in flight overlap as packets on a wire do. The writer parks until shortly before the due time; how much a
 * park overshoots is learnt as it goes (a running median), and taken off the next park, so that the median chunk
 * leaves the proxy at its due time without spinning a core of the two. Every chunk's actual time in the proxy is
 * recorded: {@link #delayed()} reports it, so a run states the delay its figures were measured with. Both sockets
 * have {@code TCP_NODELAY}: Nagle's algorithm would hold a small reply back until the previous one was acknowledged.
 * Four threads per connection: a measuring tool, not a product.
 */
final class LatencyProxy implements AutoCloseable {

    private final int targetPort;
    private final long latencyNanos;
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    /** Time from a chunk's arrival to its write, per direction: what the proxy actually added. */
    private final Histogram requestDelay = new ConcurrentHistogram(TimeUnit.SECONDS.toNanos(10), 3);
    private final Histogram replyDelay = new ConcurrentHistogram(TimeUnit.SECONDS.toNanos(10), 3);
    /** How long before a chunk's due time its writer parks until (a running median, nanoseconds); shared by all lines. */
    private volatile long parkLeadNanos = TimeUnit.MICROSECONDS.toNanos(50);
    private static final long LEAD_STEP_NANOS = 500;
    private volatile boolean closed;

    private LatencyProxy(int targetPort, long latencyNanos, ServerSocket listener) {
        this.targetPort = targetPort;
        this.latencyNanos = latencyNanos;
        this.listener = listener;
    }

    /**
     * Starts a proxy on a free loopback port that forwards to {@code targetPort} on loopback, adding {@code oneWay}
     * to every chunk in each direction.
     */
    static LatencyProxy start(int targetPort, Duration oneWay) {
        try {
            ServerSocket listener = new ServerSocket();
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
            LatencyProxy proxy = new LatencyProxy(targetPort, oneWay.toNanos(), listener);
            Thread acceptor = new Thread(proxy::acceptLoop, "bench-latency-accept-" + listener.getLocalPort());
            acceptor.setDaemon(true);
            acceptor.start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the latency proxy's port", e);
        }
    }

    /** Where clients connect instead of the server. */
    int port() {
        return listener.getLocalPort();
    }

    /** The one-way latency the proxy adds. */
    Duration latency() {
        return Duration.ofNanos(latencyNanos);
    }

    /** Forgets the delays recorded so far: a run reports those of its own window. */
    void resetRecorded() {
        requestDelay.reset();
        replyDelay.reset();
    }

    /** p50, p99 and max of each direction's actual delay in µs, and the chunks counted. */
    Map<String, Double> delayed() {
        Map<String, Double> metrics = new LinkedHashMap<>();
        Scenarios.putLatencies(metrics, "request_", requestDelay.copy());
        Scenarios.putLatencies(metrics, "reply_", replyDelay.copy());
        metrics.put("chunks", (double) (requestDelay.getTotalCount() + replyDelay.getTotalCount()));
        return metrics;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                try {
                    server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
                    client.setTcpNoDelay(true);
                    server.setTcpNoDelay(true);
                } catch (IOException e) {
                    closeQuietly(client);
                    closeQuietly(server);
                    continue;
                }
                sockets.add(client);
                sockets.add(server);
                java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger(2);
                line(client, server, requestDelay, "request", open);
                line(server, client, replyDelay, "reply", open);
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("latency proxy: " + e);
                }
            }
        }
    }

    /** A chunk read at {@code arrivedAt}; an empty one marks the end of the stream. */
    private record Chunk(long arrivedAt, byte[] bytes) {
    }

    /**
     * One direction of a connection. A sender's close ends its direction only (the other side may still answer, as
     * over a half-closed TCP connection); both sockets close when both directions ended ({@code open} counts them),
     * or at once on an error.
     */
    private void line(Socket from, Socket to, Histogram delays, String direction,
                      java.util.concurrent.atomic.AtomicInteger open) {
        BlockingQueue<Chunk> inFlight = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try {
                InputStream in = from.getInputStream();
                for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                    if (read > 0) {
                        inFlight.add(new Chunk(System.nanoTime(), Arrays.copyOf(buffer, read)));
                    }
                }
            } catch (IOException e) {
                // reset or closed: end the line
            }
            inFlight.add(new Chunk(System.nanoTime(), new byte[0]));
        }, "bench-latency-" + direction + "-in");
        Thread writer = new Thread(() -> {
            try {
                OutputStream out = to.getOutputStream();
                while (true) {
                    Chunk chunk = inFlight.take();
                    awaitDue(chunk.arrivedAt() + latencyNanos);
                    if (chunk.bytes().length == 0) {
                        break;
                    }
                    out.write(chunk.bytes());
                    out.flush();
                    delays.recordValue(Math.min(System.nanoTime() - chunk.arrivedAt(), delays.getHighestTrackableValue()));
                }
                to.shutdownOutput(); // the sender closed its side: pass the FIN on, late like the data
                if (open.decrementAndGet() > 0) {
                    return; // the other direction still runs
                }
            } catch (IOException | InterruptedException e) {
                // the other side went: close both
            }
            closeQuietly(from);
            closeQuietly(to);
            sockets.remove(from);
            sockets.remove(to);
        }, "bench-latency-" + direction + "-out");
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    /**
     * Parks until {@code due}, less the lead learnt so far, and learns from how late or early this chunk leaves: the
     * lead is a running median of the lateness a park (and the thread's wake-up) adds, one small step up when a chunk
     * left late and down when it left early, so that the median chunk leaves at its due time. A median, not a mean: on
     * a loaded machine a few parks return milliseconds late, and a mean would then send every later chunk out early.
     * A chunk that was already due when this thread took it (a backlog) teaches nothing.
     */
    private void awaitDue(long due) {
        long lead = parkLeadNanos;
        long now = System.nanoTime();
        if (due - now <= 0) {
            return;
        }
        long wait = due - lead - now;
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
        long late = System.nanoTime() - due;
        parkLeadNanos = Math.max(0, Math.min(latencyNanos, lead + (late > 0 ? LEAD_STEP_NANOS : -LEAD_STEP_NANOS)));
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        sockets.forEach(LatencyProxy::closeQuietly);
    }

    private static void closeQuietly(ServerSocket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
