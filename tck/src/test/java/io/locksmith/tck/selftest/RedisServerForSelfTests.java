package io.locksmith.tck.selftest;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server without persistence on a free loopback port, for the self-tests of the fault kit (the kit module
 * cannot use test-support's {@code ServerProcess}, which depends on the kit). {@link #restart()} kills it with -9
 * and starts it again on the same port: it comes back empty, as a server configured without persistence does.
 */
final class RedisServerForSelfTests implements AutoCloseable {

    private static final String INSTALL_HINT = "sudo apt-get install -y redis-server (Debian/Ubuntu)";

    private final int port;
    private final Path dir;
    private Process process;

    private RedisServerForSelfTests(int port, Path dir) {
        this.port = port;
        this.dir = dir;
    }

    static RedisServerForSelfTests start() {
        try {
            Path dir = Files.createTempDirectory("locksmith-tck-redis-");
            RedisServerForSelfTests server = new RedisServerForSelfTests(freePort(), dir);
            server.launch();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start redis-server (" + INSTALL_HINT + ")", e);
        }
    }

    int port() {
        return port;
    }

    /** Kills the server (-9) and starts it again on its port, without its data. */
    void restart() {
        kill();
        launch();
    }

    private void launch() {
        List<String> command = List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString());
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run redis-server: " + INSTALL_HINT, e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!answersPing()) {
            if (!process.isAlive() || System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("redis-server on port " + port + " did not start; see " + dir);
            }
            // Polling a starting server: nothing announces that it listens.
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
    }

    private boolean answersPing() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            socket.setSoTimeout(500);
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            byte[] reply = in.readNBytes(7);
            return new String(reply, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    private void kill() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        kill();
    }
}
