package io.locksmith.tck.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Free loopback ports for test servers.
 *
 * <p>The build runs test classes in several JVMs at once, and the kernel may hand the same just-closed port to
 * two of them before either server has bound it. So a port is also reserved across processes: this JVM holds an
 * exclusive lock on a file named after the port (under {@code java.io.tmpdir/locksmith-test-ports}) until it
 * exits, and skips ports whose file another live JVM holds. The operating system drops the locks of a JVM that
 * dies, so nothing needs cleaning up.
 */
public final class FreePorts {

    private static final Path RESERVATIONS = Path.of(System.getProperty("java.io.tmpdir"), "locksmith-test-ports");

    /** Ports handed out by this JVM, with the lock that reserves each one against other JVMs. */
    private static final Map<Integer, FileLock> HANDED_OUT = new HashMap<>();

    private FreePorts() {
    }

    /** A loopback port that is free now and was not handed out before by this JVM or by another live one. */
    public static synchronized int next() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port;
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                port = socket.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot find a free loopback port", e);
            }
            // Some servers use port+N for a second listener (etcd peers, Redis cluster bus): keep them apart.
            if (!HANDED_OUT.containsKey(port)) {
                FileLock reservation = reserve(port);
                if (reservation != null) {
                    HANDED_OUT.put(port, reservation);
                    return port;
                }
            }
        }
        throw new IllegalStateException("no free loopback port found after 100 tries");
    }

    /** Locks the port's reservation file for the rest of this JVM's life; null if another JVM holds it. */
    private static FileLock reserve(int port) {
        FileChannel channel = null;
        try {
            Files.createDirectories(RESERVATIONS);
            channel = FileChannel.open(RESERVATIONS.resolve(Integer.toString(port)), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
            }
            return lock; // the channel stays open while the lock is held: closing it would release the lock
        } catch (OverlappingFileLockException e) {
            closeQuietly(channel);
            return null;
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException("cannot reserve loopback port " + port + " in " + RESERVATIONS, e);
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing was reserved through it
            }
        }
    }

    /** Whether something accepts connections on the loopback port. */
    public static boolean isListening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Waits until the loopback port accepts connections.
     *
     * @throws IllegalStateException if it does not within {@code timeout}
     */
    public static void awaitListening(int port, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!isListening(port)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + " did not listen on 127.0.0.1:" + port + " within " + timeout);
            }
            try {
                Thread.sleep(20); // polling a socket: there is no event to await
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }
}
