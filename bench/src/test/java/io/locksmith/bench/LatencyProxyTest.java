package io.locksmith.bench;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The delaying proxy forwards every byte, in order, both ways, and passes a close on; no timing is asserted. */
class LatencyProxyTest {

    @Test
    void forwardsEveryChunkInOrderBothWaysAndPassesTheCloseOn() throws Exception {
        try (ServerSocket echo = new ServerSocket()) {
            echo.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Thread server = new Thread(() -> {
                try (Socket socket = echo.accept()) {
                    socket.getInputStream().transferTo(socket.getOutputStream()); // echo until the client closes
                } catch (java.io.IOException e) {
                    // the test fails on what the client reads
                }
            });
            server.start();
            try (LatencyProxy proxy = LatencyProxy.start(echo.getLocalPort(), Duration.ofNanos(100_000));
                 Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
                OutputStream out = client.getOutputStream();
                StringBuilder sent = new StringBuilder();
                for (int i = 0; i < 200; i++) {
                    String chunk = "chunk-" + i + ";";
                    out.write(chunk.getBytes(StandardCharsets.US_ASCII)); // back to back: many chunks in flight
                    out.flush();
                    sent.append(chunk);
                }
                client.shutdownOutput(); // the close reaches the server through the proxy, which then closes too
                InputStream in = client.getInputStream();
                ByteArrayOutputStream received = new ByteArrayOutputStream();
                in.transferTo(received);
                assertEquals(sent.toString(), received.toString(StandardCharsets.US_ASCII));
                assertTrue(proxy.delayed().get("chunks") > 0);
                assertEquals(Duration.ofNanos(100_000), proxy.latency());
            }
            server.join(10_000);
        }
    }
}
