package io.locksmith.bench;

import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.HdrHistogram.Histogram;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.function.IntSupplier;

/**
 * The delaying proxy measured alone (issue 35, item 5): a raw Redis {@code PING} round trip on one socket, direct, and
 * through the bench's {@link LatencyProxy} and the kit's {@link TcpProxy} at 0 and at the given one-way delay; then
 * two {@code PING}s written back to back (two segments, as a pipelining client sends them), whose second reply shows
 * whether a proxy delays chunks in flight side by side or one after the other. Starts its own redis-server.
 * <pre>
 * java -cp bench/target/locksmith-bench.jar io.locksmith.bench.NetworkCheck [one-way µs, default 100] [seconds, default 3]
 * </pre>
 */
public final class NetworkCheck {

    private static final byte[] PING = "PING\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int PONG_LENGTH = "+PONG\r\n".length();

    private NetworkCheck() {
    }

    public static void main(String[] args) throws Exception {
        long oneWayMicros = args.length > 0 ? Long.parseLong(args[0]) : 100;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 3;
        Duration delay = Duration.ofNanos(oneWayMicros * 1_000);
        Path dir = Files.createTempDirectory("locksmith-network-check-");
        int redisPort = FreePorts.next();
        try (ServerProcess redis = StoreServers.redis(redisPort, dir.resolve("redis"))) {
            System.out.printf(Locale.ROOT, "one-way delay asked: %d µs; load %s%n", oneWayMicros, BenchMain.loadAverage());
            System.out.println("| path | PING p50 µs | p90 µs | p99 µs | 2 PINGs back to back: 2nd reply p50 µs | p99 µs |");
            System.out.println("|---|---:|---:|---:|---:|---:|");
            row("direct (loopback)", () -> redisPort, seconds);
            try (LatencyProxy proxy = LatencyProxy.start(redisPort, Duration.ZERO)) {
                row("bench LatencyProxy, 0 µs", () -> proxy.port(), seconds);
            }
            try (LatencyProxy proxy = LatencyProxy.start(redisPort, delay)) {
                row("bench LatencyProxy, " + oneWayMicros + " µs each way", () -> proxy.port(), seconds);
                System.out.println("  proxy's own record of a chunk's time in it: " + proxy.delayed());
            }
            try (TcpProxy proxy = TcpProxy.start("127.0.0.1", redisPort)) {
                row("kit TcpProxy, no delay", () -> proxy.port(), seconds);
            }
            try (TcpProxy proxy = TcpProxy.start("127.0.0.1", redisPort)) {
                proxy.delay(delay);
                row("kit TcpProxy, delay(" + oneWayMicros + " µs)", () -> proxy.port(), seconds);
            }
        }
        System.exit(0);
    }

    private static void row(String path, IntSupplier port, long seconds) throws Exception {
        Histogram single = Scenarios.histogram();
        Histogram second = Scenarios.histogram();
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port.getAsInt())) {
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            byte[] reply = new byte[64];
            long warmUntil = System.nanoTime() + 500_000_000L;
            long end = warmUntil + seconds * 1_000_000_000L;
            for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
                long before = System.nanoTime();
                out.write(PING);
                out.flush();
                readFully(in, reply, PONG_LENGTH);
                long after = System.nanoTime();
                out.write(PING);
                out.flush();
                out.write(PING);
                out.flush();
                readFully(in, reply, 2 * PONG_LENGTH);
                long afterTwo = System.nanoTime();
                if (before > warmUntil) {
                    single.recordValue(after - before);
                    second.recordValue(afterTwo - after);
                }
            }
        }
        System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f |%n", path,
                single.getValueAtPercentile(50) / 1e3, single.getValueAtPercentile(90) / 1e3,
                single.getValueAtPercentile(99) / 1e3, second.getValueAtPercentile(50) / 1e3,
                second.getValueAtPercentile(99) / 1e3);
    }

    private static void readFully(InputStream in, byte[] buffer, int length) throws java.io.IOException {
        int at = 0;
        while (at < length) {
            int read = in.read(buffer, at % buffer.length, Math.min(buffer.length - at % buffer.length, length - at));
            if (read < 0) {
                throw new java.io.EOFException("server closed");
            }
            at += read;
        }
    }
}
