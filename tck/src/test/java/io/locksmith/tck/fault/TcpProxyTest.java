package io.locksmith.tck.fault;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TcpProxyTest {

    private ServerSocket echo;
    private TcpProxy proxy;
    /** Every byte the echo server received, in order. */
    private final BlockingQueue<Integer> received = new LinkedBlockingQueue<>();

    @BeforeEach
    void startEchoServerBehindProxy() throws IOException {
        echo = new ServerSocket();
        echo.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket socket = echo.accept();
                    Thread worker = new Thread(() -> {
                        try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
                            int b;
                            while ((b = in.read()) >= 0) {
                                received.add(b);
                                out.write(b);
                                out.flush();
                            }
                        } catch (IOException ignored) {
                            // connection gone
                        }
                    });
                    worker.setDaemon(true);
                    worker.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        proxy = TcpProxy.start("127.0.0.1", echo.getLocalPort());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        socket.setSoTimeout(300);
        return socket;
    }

    private static int roundTrip(Socket socket, int value) throws IOException {
        socket.getOutputStream().write(value);
        socket.getOutputStream().flush();
        return socket.getInputStream().read();
    }

    @Test
    void forwardsUntilBlackholedAndAgainWhenHealed() throws IOException {
        try (Socket socket = connect()) {
            assertEquals('a', roundTrip(socket, 'a'));
            proxy.blackhole();
            assertThrows(SocketTimeoutException.class, () -> roundTrip(socket, 'b'));
            proxy.heal();
            assertEquals('c', roundTrip(socket, 'c'));
        }
    }

    @Test
    void dropsTheReplyButNotTheRequest() throws IOException {
        try (Socket socket = connect()) {
            assertEquals('a', roundTrip(socket, 'a'));
            proxy.dropNextReplies(1);
            assertThrows(SocketTimeoutException.class, () -> roundTrip(socket, 'b'));
            assertEquals('c', roundTrip(socket, 'c'));
        }
    }

    @Test
    void resetClosesOpenConnections() throws IOException {
        try (Socket socket = connect()) {
            assertEquals('a', roundTrip(socket, 'a'));
            proxy.resetAll();
            boolean failed;
            try {
                failed = roundTrip(socket, 'b') < 0;
            } catch (IOException e) {
                failed = true;
            }
            assertTrue(failed, "a reset connection must not keep working");
        }
        try (Socket fresh = connect()) {
            assertEquals('d', roundTrip(fresh, 'd'));
        }
    }

    @Test
    void holdsTheRequestsSentAfterTheNextReplyUntilReleased() throws IOException {
        try (Socket socket = connect()) {
            proxy.holdRequestsAfterNextReply();
            assertEquals('a', roundTrip(socket, 'a'), "the next exchange goes through");
            assertThrows(SocketTimeoutException.class, () -> roundTrip(socket, 'b'));
            assertEquals(1, proxy.heldRequests());
            assertEquals(java.util.List.of((int) 'a'), java.util.List.copyOf(received), "the held request reached the server");
            proxy.releaseRequests();
            assertEquals('b', socket.getInputStream().read(), "the released request was answered");
            assertEquals('c', roundTrip(socket, 'c'), "forwarding as before after the release");
        }
    }

    @Test
    void heldRequestsReachTheServerAfterTheClientGaveUp() throws IOException {
        try (Socket socket = connect()) {
            assertEquals('a', roundTrip(socket, 'a'));
            received.clear();
            proxy.holdRequests();
            socket.getOutputStream().write('x');
            socket.getOutputStream().flush();
            await("the request held").atMost(Duration.ofSeconds(5)).until(() -> proxy.heldRequests() == 1);
        }
        // The client is gone; a delayed segment still arrives.
        assertTrue(received.isEmpty(), "a held request reached the server before the release");
        proxy.releaseRequests();
        await("the held request delivered").atMost(Duration.ofSeconds(5)).until(() -> received.contains((int) 'x'));
    }

    @Test
    void holdsRequestsOnNewConnectionsToo() throws IOException {
        proxy.holdRequests();
        try (Socket socket = connect()) {
            assertThrows(SocketTimeoutException.class, () -> roundTrip(socket, 'e'));
            proxy.releaseRequests();
            assertEquals('e', socket.getInputStream().read());
        }
    }

    @Test
    void rewritesWholeMemberAddressesToTheirProxies() {
        try (TcpProxy second = TcpProxy.start(LoopbackAddresses.member(0), "127.0.0.1", echo.getLocalPort() + 1)) {
            java.util.List<TcpProxy> proxies = java.util.List.of(proxy, second);
            String uri = "store://127.0.0.1:" + echo.getLocalPort() + ",127.0.0.1:" + (echo.getLocalPort() + 1)
                    + ",127.0.0.1:" + echo.getLocalPort() + "1/x?timeout=1s";
            assertEquals("store://" + proxy.address() + "," + second.address() + ",127.0.0.1:" + echo.getLocalPort()
                    + "1/x?timeout=1s", TcpProxies.rewrite(proxies, uri), "a longer port is not a member's");
            assertTrue(second.address().startsWith("127.0.0.11:"), second.address());
            assertEquals(java.util.Map.of("127.0.0.1:" + echo.getLocalPort(), proxy.address(),
                    "127.0.0.1:" + (echo.getLocalPort() + 1), second.address()), TcpProxies.addressMap(proxies));
        }
    }

    @Test
    void aProxyOnAMembersOwnLoopbackAddressForwards() throws IOException {
        try (TcpProxy own = TcpProxy.start(LoopbackAddresses.member(1), "127.0.0.1", echo.getLocalPort());
             Socket socket = new Socket(InetAddress.getByName(LoopbackAddresses.member(1)), own.port())) {
            socket.setSoTimeout(2000);
            assertEquals('z', roundTrip(socket, 'z'));
        }
    }
}
