package io.locksmith.redis;

import io.locksmith.LockStoreException;
import io.locksmith.spi.CallDeadline;
import io.locksmith.spi.LockUri;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Over Jedis to one node, one provider call ends by one deadline (the URI's {@code timeout}) whatever the server
 * does, which is what lets the shared client call the provider on the caller's thread. A server that accepts
 * connections and never answers makes a new connection's handshake wait on several reads, each of which Jedis alone
 * would give the whole socket time-out.
 */
class CallDeadlineTest {

    /**
     * Answers every command with {@code +OK}, each {@code delay} after it arrived: a server that answers late, each
     * answer within the socket time-out, so that Jedis alone lets a call of several requests run for their sum.
     */
    private static final class SlowServer implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final List<Socket> accepted = new CopyOnWriteArrayList<>();

        SlowServer(Duration delay) throws IOException {
            Thread acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket socket = server.accept();
                        accepted.add(socket);
                        Thread answer = new Thread(() -> answerLate(socket, delay), "slow-answer");
                        answer.setDaemon(true);
                        answer.start();
                    } catch (IOException closed) {
                        return;
                    }
                }
            }, "slow-accept");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private static void answerLate(Socket socket, Duration delay) {
            try (socket; InputStream in = new java.io.BufferedInputStream(socket.getInputStream())) {
                while (true) {
                    // A command is an array of bulk strings: *N, then N times $len and the bytes.
                    String header = line(in);
                    if (header == null) {
                        return;
                    }
                    int parts = Integer.parseInt(header.substring(1));
                    for (int i = 0; i < parts; i++) {
                        int length = Integer.parseInt(line(in).substring(1));
                        in.readNBytes(length + 2);
                    }
                    Thread.sleep(delay.toMillis());
                    socket.getOutputStream().write("+OK\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                }
            } catch (IOException | InterruptedException | RuntimeException gone) {
                // the client gave up, or the test ended
            }
        }

        private static String line(InputStream in) throws IOException {
            StringBuilder text = new StringBuilder();
            int c;
            while ((c = in.read()) != -1) {
                if (c == '\n') {
                    return text.toString().trim();
                }
                text.append((char) c);
            }
            return null;
        }

        int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket socket : accepted) {
                socket.close();
            }
        }
    }

    @Test
    void aCallOnANewConnectionToALateServerEndsAtTheCallLimitNotAtTheSumOfItsReads() throws Exception {
        // Each answer comes 600 ms late, within the 1 s socket time-out: the handshake of a new connection and the
        // script are several requests, 2.4 s or more in all without one deadline for the call.
        try (SlowServer slow = new SlowServer(Duration.ofMillis(600))) {
            RedisSettings settings = RedisSettings.parse(LockUri.parse("redis://127.0.0.1:" + slow.port()
                    + "?client=jedis&timeout=1s"));
            RedisCommands commands = JedisTransports.node(settings, settings.hosts().get(0), "slow");
            try {
                assertEquals(Duration.ofSeconds(1), commands.callTimeLimit().orElseThrow());
                long start = System.nanoTime();
                assertThrows(LockStoreException.class, () -> commands.oneCall(() ->
                        commands.evalsha("0000000000000000000000000000000000000000", List.of("k"), List.of(), null)));
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(tookMs >= 900 && tookMs < 2_000, "the call took " + tookMs + " ms; its limit is 1000 ms");
            } finally {
                commands.close();
            }
        }
    }

    @Test
    void withoutADeadlineOnTheThreadJedisOwnTimeOutsApply() throws Exception {
        assertEquals(1_500, DeadlineSockets.remainingMillis(1_500));
        int inside = CallDeadline.within(Duration.ofMillis(200), () -> {
            try {
                return DeadlineSockets.remainingMillis(1_500);
            } catch (java.net.SocketTimeoutException e) {
                throw new AssertionError(e);
            }
        });
        assertTrue(inside > 0 && inside <= 200, "under a 200 ms deadline a read may wait " + inside + " ms");
        assertEquals(1_500, DeadlineSockets.remainingMillis(1_500));
    }
}
