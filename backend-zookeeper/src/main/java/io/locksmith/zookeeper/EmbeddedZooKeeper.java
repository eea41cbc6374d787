package io.locksmith.zookeeper;

import io.locksmith.LockStoreException;
import org.apache.zookeeper.server.ContainerManager;
import org.apache.zookeeper.server.RequestProcessor;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A standalone ZooKeeper server inside this JVM, on a loopback port, with its data in a temporary directory
 * deleted on {@link #close()}. For tests, demos and tools that need a {@code zookeeper://} store with
 * nothing installed:
 *
 * <pre>{@code
 * try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
 *      LockClient locks = LockClient.open(zk.uri())) {
 *     ...
 * }
 * }</pre>
 *
 * <p>It accepts session timeouts from 400 ms to 2 minutes (a short tick, so expiry is quick to test) and
 * deletes empty lock containers every second. It is the ZooKeeper server of the {@code zookeeper} jar the
 * backend already depends on; nothing else is pulled in. Not for production: one server, no quorum.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {

    private static final int TICK_MILLIS = 200;
    private static final int MIN_SESSION_MILLIS = 2 * TICK_MILLIS;
    private static final int MAX_SESSION_MILLIS = 120_000;
    private static final int CONTAINER_CHECK_MILLIS = 1_000;
    private static final int CONTAINER_DELETES_PER_MINUTE = 100_000;

    /** Exposes the first request processor, which the container manager sends its deletions to. */
    private static final class Server extends ZooKeeperServer {
        Server(File snapDir, File logDir) throws IOException {
            super(snapDir, logDir, TICK_MILLIS);
        }

        RequestProcessor firstRequestProcessor() {
            return firstProcessor;
        }
    }

    /** One run of the server: what {@link #restart()} stops and starts again. */
    private record Running(Server server, ServerCnxnFactory connections, ContainerManager containers) {
        void stop() {
            containers.stop();
            connections.shutdown();
            server.shutdown();
        }
    }

    private final Path dataDir;
    private final int port;
    private volatile Running running;

    private EmbeddedZooKeeper(Path dataDir, Running running) {
        this.dataDir = dataDir;
        this.port = running.connections().getLocalPort();
        this.running = running;
    }

    /**
     * Starts a server on a free loopback port.
     *
     * @throws LockStoreException if it cannot start (no temporary directory, no free port)
     */
    public static EmbeddedZooKeeper start() {
        return start(0);
    }

    /**
     * Starts a server on the given loopback port; {@code 0} picks a free one.
     *
     * @throws IllegalArgumentException if {@code port} is not within 0..65535
     * @throws LockStoreException       if it cannot start (port taken, no temporary directory)
     */
    public static EmbeddedZooKeeper start(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be within 0..65535, was " + port);
        }
        Path dataDir;
        try {
            dataDir = Files.createTempDirectory("locksmith-zookeeper-");
        } catch (IOException e) {
            throw new LockStoreException("cannot start an embedded ZooKeeper server on port " + port + ": " + e, e);
        }
        try {
            return new EmbeddedZooKeeper(dataDir, run(port, dataDir));
        } catch (RuntimeException e) {
            cleanUp(null, dataDir);
            throw e;
        }
    }

    private static Running run(int port, Path dataDir) {
        ServerCnxnFactory connections = null;
        try {
            Server server = new Server(dataDir.resolve("snap").toFile(), dataDir.resolve("log").toFile());
            server.setMinSessionTimeout(MIN_SESSION_MILLIS);
            server.setMaxSessionTimeout(MAX_SESSION_MILLIS);
            // The database is loaded before the port opens. ZooKeeper's own start-up order (open the port, then
            // load) has a window in which a connection that is closed (a client too early, told "ZooKeeperServer
            // not running") makes NIOServerCnxn.close() fail with a NullPointerException (no database yet) before
            // it closes the socket: that client then hears nothing and waits two thirds of its session timeout
            // (20 s for a 30 s session) before it tries again. Loading first leaves no such window.
            server.startdata();
            connections = ServerCnxnFactory.createFactory(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
            connections.startup(server, false);
            server.startup();
            ContainerManager containers = new ContainerManager(server.getZKDatabase(), server.firstRequestProcessor(),
                    CONTAINER_CHECK_MILLIS, CONTAINER_DELETES_PER_MINUTE);
            containers.start();
            return new Running(server, connections, containers);
        } catch (IOException e) {
            cleanUp(connections, null);
            throw new LockStoreException("cannot start an embedded ZooKeeper server on port " + port + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cleanUp(connections, null);
            throw new LockStoreException("interrupted while starting an embedded ZooKeeper server", e);
        }
    }

    /**
     * Stops the server and starts it again on the same port with the data it had, as a server process that crashed
     * and was started again on its data directory: committed nodes are kept, and so are the sessions whose clients
     * reconnect within their timeout, with their ephemeral nodes; transaction ids go on from where they were. For
     * fault tests of a store restart; clients see their connection drop and reconnect.
     *
     * @throws LockStoreException if it cannot start again (the port was taken meanwhile)
     */
    public synchronized void restart() {
        if (running != null) {
            running.stop();
        }
        running = run(port, dataDir);
    }

    /**
     * Stops the server as a crash would, until {@link #restart()}: its port refuses connections meanwhile. For fault
     * tests of a store that is down.
     */
    public synchronized void kill() {
        if (running != null) {
            running.stop();
            running = null;
        }
    }

    /** The port the server listens on. */
    public int port() {
        return port;
    }

    /** {@code 127.0.0.1:PORT}, for a ZooKeeper or Curator client. */
    public String connectString() {
        return InetAddress.getLoopbackAddress().getHostAddress() + ":" + port();
    }

    /** {@code zookeeper://127.0.0.1:PORT/locksmith}: the URI a {@code LockClient} opens. */
    public String uri() {
        return "zookeeper://" + connectString() + ZooKeeperSettings.DEFAULT_BASE_PATH;
    }

    /**
     * Expires a session on the server, as if its client had been silent for the whole session timeout: its
     * ephemeral nodes go and its client is told {@code Expired} when it next talks to the server.
     *
     * @return false if there is no such session
     */
    public boolean expireSession(long sessionId) {
        Server server = running.server();
        if (!server.getSessionTracker().isTrackingSession(sessionId)) {
            return false;
        }
        server.expire(sessionId);
        return true;
    }

    /** Stops the server and deletes its data. Idempotent. */
    @Override
    public synchronized void close() {
        if (running != null) {
            running.stop();
            running = null;
        }
        cleanUp(null, dataDir);
    }

    private static void cleanUp(ServerCnxnFactory connections, Path dataDir) {
        if (connections != null) {
            connections.shutdown();
        }
        if (dataDir == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException | UncheckedIOException e) {
            // A temporary directory left behind is not worth failing a shutdown for.
        }
    }

    @Override
    public String toString() {
        return "EmbeddedZooKeeper[" + connectString() + "]";
    }
}
