package io.locksmith.tck.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

/** Free loopback ports for test servers. */
public final class FreePorts {

    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private FreePorts() {
    }

    /** A loopback port that is free now and was not handed out before by this JVM. */
    public static synchronized int next() {
        for (int attempt = 0; attempt < 100; attempt++) {
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                int port = socket.getLocalPort();
                // Some servers use port+N for a second listener (etcd peers, Redis cluster bus): keep them apart.
                if (HANDED_OUT.add(port)) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot find a free loopback port", e);
            }
        }
        throw new IllegalStateException("no free loopback port found after 100 tries");
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
