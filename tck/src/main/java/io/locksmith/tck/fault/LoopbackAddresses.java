package io.locksmith.tck.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Loopback addresses of their own for the members of a deployment on one machine: {@code 127.0.0.11},
 * {@code 127.0.0.12}, ... Linux routes all of {@code 127.0.0.0/8} to the loopback interface, so a member started on
 * one needs no set-up, and its clients, its peers, a {@link LoopbackFirewall} rule and a log line tell it apart by
 * address instead of by port. A store whose members announce their addresses to clients (a member list) then
 * announces addresses a test can map to proxies one to one ({@link TcpProxies#addressMap()}).
 */
public final class LoopbackAddresses {

    /** The last octet of member 0; the ones below are left to other uses of loopback. */
    private static final int FIRST = 11;
    private static final int MAX_MEMBERS = 240;

    private LoopbackAddresses() {
    }

    /**
     * The address of member {@code index} (0 for the first): {@code 127.0.0.11} and up.
     *
     * @throws IllegalArgumentException if {@code index} is negative or 240 and above
     */
    public static String member(int index) {
        if (index < 0 || index >= MAX_MEMBERS) {
            throw new IllegalArgumentException("member index must be within 0.." + (MAX_MEMBERS - 1) + ", was " + index);
        }
        return "127.0.0." + (FIRST + index);
    }

    /**
     * A port free on {@code address} now (another process may take it before the caller binds it: bind soon).
     *
     * @throws UncheckedIOException if {@code address} cannot be bound (not a local address)
     */
    public static int freePort(String address) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName(address), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on " + address, e);
        }
    }
}
