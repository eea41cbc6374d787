package io.locksmith.etcd;

import io.etcd.jetcd.Client;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * What a refused gRPC connection means for one jetcd client: the members are down, or the channel has not tried again
 * yet. With wait-for-ready off, a request on a channel in {@code TRANSIENT_FAILURE} fails at once with the last
 * connection error, also once the members are back: gRPC tries again only at the end of its reconnect back-off, which
 * grows to several seconds after an outage of a few. So a refusal is checked against the members themselves: if
 * every one refuses a TCP connection now, the store is down (the shared client then fails calls fast, SPEC R9.14);
 * if one accepts, the channel is told to reconnect now and the request is tried again.
 */
final class Reachability {

    private static final Logger LOG = LoggerFactory.getLogger(Reachability.class);
    /** How long one member's TCP handshake is waited for: a refusal is immediate, no answer proves nothing. */
    private static final int CHECK_MILLIS = 250;

    private final List<InetSocketAddress> members;
    private final Client client;
    private volatile boolean resetUnavailable;

    private Reachability(List<InetSocketAddress> members, Client client) {
        this.members = members;
        this.client = client;
    }

    /** @param endpoints the members, as {@code http://host:port} */
    static Reachability of(List<String> endpoints, Client client) {
        List<InetSocketAddress> members = new ArrayList<>();
        for (String endpoint : endpoints) {
            URI uri = URI.create(endpoint);
            members.add(InetSocketAddress.createUnresolved(uri.getHost(), uri.getPort()));
        }
        return new Reachability(List.copyOf(members), client);
    }

    /**
     * The refusal, if every member refuses a TCP connection now; null if one accepts (then the channel is told to
     * reconnect at once) or if one does not answer at all (nothing proven).
     */
    ConnectException everyMemberRefuses() {
        if (members.isEmpty()) {
            return new ConnectException("no member to ask");
        }
        ConnectException refused = null;
        for (InetSocketAddress member : members) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(member.getHostString(), member.getPort()), CHECK_MILLIS);
                reconnectNow();
                return null;
            } catch (ConnectException e) {
                refused = e;
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
        return refused;
    }

    /**
     * Ends the channel's reconnect back-off ({@code ManagedChannel.resetConnectBackoff()}). jetcd does not expose its
     * channel, so it is read from jetcd's client by reflection; if that fails (another jetcd version), the channel
     * reconnects at the end of its back-off, which only delays the first request after an outage.
     */
    private void reconnectNow() {
        if (client == null || resetUnavailable) {
            return;
        }
        try {
            java.lang.reflect.Field field = client.getClass().getDeclaredField("connectionManager");
            field.setAccessible(true);
            Object manager = field.get(client);
            java.lang.reflect.Method getChannel = manager.getClass().getDeclaredMethod("getChannel");
            getChannel.setAccessible(true);
            Object channel = getChannel.invoke(manager);
            // Through the public API class: the channel's own class is gRPC-internal (and gRPC is not a module).
            Class<?> managedChannel = Class.forName("io.grpc.ManagedChannel", false, channel.getClass().getClassLoader());
            managedChannel.getMethod("resetConnectBackoff").invoke(channel);
        } catch (ReflectiveOperationException | RuntimeException e) {
            resetUnavailable = true;
            LOG.debug("cannot reach jetcd's gRPC channel to end its reconnect back-off; it reconnects at the end of it",
                    e);
        }
    }
}
