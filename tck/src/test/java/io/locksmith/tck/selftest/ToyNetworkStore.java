package io.locksmith.tck.selftest;

import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link ToyStore} behind a socket, for the fault kit's self-tests: the store is reachable only while a
 * one-byte round trip to its port works, so a {@link io.locksmith.tck.fault.TcpProxy} in front of the port can
 * blackhole it. {@code toynet://127.0.0.1:port?timeout=300ms[&flaw=...]}. The store itself lives in this JVM, one
 * per port.
 */
final class ToyNetworkStore implements AutoCloseable {

    /** Defects of the network part of a provider, each seen in real store clients. */
    enum NetworkFlaw {
        /** A store error is reported as "not acquired" / "not held": a dead store looks like a busy lock. */
        SWALLOW_ERRORS,
        /** Ignores the URI's time-out: its calls wait 10 s for the store, and it says so as its command time-out. */
        IGNORE_TIMEOUT
    }

    private static final Map<Integer, ToyStore> STORES = new ConcurrentHashMap<>();

    private final ServerSocket server;
    private final Thread acceptor;

    private ToyNetworkStore(ServerSocket server) {
        this.server = server;
        this.acceptor = new Thread(this::serve, "toynet-" + server.getLocalPort());
        this.acceptor.setDaemon(true);
        this.acceptor.start();
        STORES.put(server.getLocalPort(), new ToyStore(Set.of(), false));
    }

    /** Starts a store on a free loopback port. */
    static ToyNetworkStore start() {
        try {
            ServerSocket socket = new ServerSocket();
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return new ToyNetworkStore(socket);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the toy network store", e);
        }
    }

    int port() {
        return server.getLocalPort();
    }

    private void serve() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread echo = new Thread(() -> echo(socket), "toynet-echo");
                echo.setDaemon(true);
                echo.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void echo(Socket socket) {
        try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
            int b;
            while ((b = in.read()) >= 0) {
                out.write(b);
                out.flush();
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    @Override
    public void close() throws IOException {
        STORES.remove(server.getLocalPort());
        server.close();
    }

    /** Serves {@code toynet://}. */
    public static final class Factory implements LockProviderFactory {
        @Override
        public Set<String> schemes() {
            return Set.of("toynet");
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            LockUri.HostPort host = uri.hosts(0).get(0);
            Duration timeout = uri.duration("timeout", Duration.ofSeconds(2));
            Set<NetworkFlaw> flaws = EnumSet.noneOf(NetworkFlaw.class);
            uri.parameter("flaw").ifPresent(flaw -> flaws.add(NetworkFlaw.valueOf(flaw.toUpperCase(Locale.ROOT))));
            int target = uri.integer("store", host.port(), 1, 65535);
            ToyStore backing = STORES.get(target);
            if (backing == null) {
                throw new LockStoreException("no toy network store on port " + target, null);
            }
            return new Provider(host, backing, flaws.contains(NetworkFlaw.IGNORE_TIMEOUT) ? Duration.ofSeconds(10) : timeout,
                    flaws);
        }
    }

    /** A provider that asks the network before every store step. */
    private static final class Provider implements LockProvider {
        private final LockUri.HostPort host;
        private final ToyStore store;
        private final Duration timeout;
        private final Set<NetworkFlaw> flaws;
        private Socket socket;

        Provider(LockUri.HostPort host, ToyStore store, Duration timeout, Set<NetworkFlaw> flaws) {
            this.host = host;
            this.store = store;
            this.timeout = timeout;
            this.flaws = flaws;
        }

        /** One byte there and back within the time-out, on a connection opened again after any failure. */
        private synchronized void roundTrip(String name) {
            try {
                if (socket == null) {
                    socket = new Socket();
                    socket.connect(new InetSocketAddress(host.host(), host.port()), (int) timeout.toMillis());
                    socket.setSoTimeout((int) timeout.toMillis());
                }
                socket.getOutputStream().write(1);
                socket.getOutputStream().flush();
                if (socket.getInputStream().read() < 0) {
                    throw new IOException("connection closed");
                }
            } catch (IOException e) {
                try {
                    if (socket != null) {
                        socket.close();
                    }
                } catch (IOException ignored) {
                    // closing a broken socket
                }
                socket = null;
                throw new LockStoreException(name, describe() + " did not answer: " + e, e);
            }
        }

        private boolean reachable(String name) {
            try {
                roundTrip(name);
                return true;
            } catch (LockStoreException e) {
                if (flaws.contains(NetworkFlaw.SWALLOW_ERRORS)) {
                    return false;
                }
                throw e;
            }
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            if (!reachable(request.name())) {
                return Optional.empty();
            }
            long token = store.tryAcquire(request.name(), request.owner(), request.ttl(), request.willWait());
            return token < 0 ? Optional.empty()
                    : Optional.of(new Grant(request.name(), request.owner(), token, request.ttl()));
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            return reachable(grant.name()) && store.renew(grant.name(), grant.owner().id(), ttl);
        }

        @Override
        public boolean release(Grant grant) {
            return reachable(grant.name()) && store.release(grant.name(), grant.owner().id());
        }

        @Override
        public void cancel(String name, Owner owner) {
            if (reachable(name)) {
                store.cancel(name, owner.id());
            }
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            return reachable(name) ? Optional.ofNullable(store.inspect(name)) : Optional.empty();
        }

        @Override
        public Duration commandTimeout() {
            return timeout;
        }

        @Override
        public Set<Capability> capabilities() {
            return EnumSet.of(Capability.FENCING);
        }

        @Override
        public String describe() {
            return "toynet://" + host;
        }

        @Override
        public synchronized void close() {
            if (socket != null) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
    }
}
