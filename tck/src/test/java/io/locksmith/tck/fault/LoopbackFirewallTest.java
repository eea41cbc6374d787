package io.locksmith.tck.fault;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The partition tool against real sockets: what it cuts is cut, what it does not cut still connects. */
class LoopbackFirewallTest {

    private ServerSocket server;
    private Thread acceptor;

    @BeforeEach
    void startEchoServer() throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket socket = server.accept()) {
                    socket.getOutputStream().write(socket.getInputStream().read());
                } catch (IOException ignored) {
                    // closed at the end of the test, or a client that gave up
                }
            }
        }, "echo");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @AfterEach
    void stopEchoServer() throws IOException {
        server.close();
    }

    @Test
    void cutPortsDropsConnectionsUntilHealed() throws Exception {
        assertTrue(echoes(), "before the cut");
        try (LoopbackFirewall firewall = LoopbackFirewall.open()) {
            firewall.cutPorts(server.getLocalPort());
            assertFalse(echoes(), "a cut port must not answer");
            firewall.heal();
            assertTrue(echoes(), "after the heal");
        }
        assertTrue(echoes(), "after close");
    }

    @Test
    void cutProcessDropsOnlyThatProcessesConnections() throws Exception {
        // A bash that connects to the port once told to: the process is cut before it tries.
        Process child = new ProcessBuilder("bash", "-c",
                "read go; exec 3<>/dev/tcp/127.0.0.1/" + server.getLocalPort() + " && echo connected")
                .redirectErrorStream(true).start();
        try (LoopbackFirewall firewall = LoopbackFirewall.open()) {
            firewall.cutProcess(child.pid(), server.getLocalPort());
            OutputStream stdin = child.getOutputStream();
            stdin.write("go\n".getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
            assertFalse(child.waitFor(1500, TimeUnit.MILLISECONDS), "the cut process must not get through");
            assertTrue(echoes(), "another process (this JVM) still connects");
            firewall.heal();
            // The child's SYN is retransmitted after about 1 s, then 3 s: it connects once healed.
            assertTrue(child.waitFor(10, TimeUnit.SECONDS), "the healed process connects");
            String line = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertEquals("connected", line);
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void cutProcessAlsoDropsTheConnectionsItHasOpenAlready() throws Exception {
        // Connected before the cut (as a replica or a Sentinel is to its primary), sends one byte after it.
        Process child = new ProcessBuilder("bash", "-c",
                "exec 3<>/dev/tcp/127.0.0.1/" + server.getLocalPort() + " && echo connected && read go"
                        + " && printf x >&3 && read -r -n 1 -u 3 reply && echo \"echoed $reply\"")
                .redirectErrorStream(true).start();
        BufferedReader output = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        try (LoopbackFirewall firewall = LoopbackFirewall.open()) {
            assertEquals("connected", output.readLine());
            firewall.cutProcess(child.pid(), server.getLocalPort());
            OutputStream stdin = child.getOutputStream();
            stdin.write("go\n".getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
            assertFalse(child.waitFor(1500, TimeUnit.MILLISECONDS), "the established connection must be cut too");
            firewall.heal();
            // The byte is retransmitted with backoff (0.2 s, 0.4 s, 0.8 s, ...): it gets through once healed.
            assertTrue(child.waitFor(10, TimeUnit.SECONDS), "the healed connection carries the byte");
            assertEquals("echoed x", output.readLine());
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void refusesBadPortLists() {
        try (LoopbackFirewall firewall = LoopbackFirewall.open()) {
            assertThrows(IllegalArgumentException.class, firewall::cutPorts);
            assertThrows(IllegalArgumentException.class, () -> firewall.cutPorts(0));
            assertThrows(IllegalArgumentException.class, () -> firewall.cutPorts(new int[16]));
        }
    }

    private boolean echoes() throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", server.getLocalPort()), 700);
            socket.setSoTimeout(700);
            socket.getOutputStream().write(42);
            return socket.getInputStream().read() == 42;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }
}
