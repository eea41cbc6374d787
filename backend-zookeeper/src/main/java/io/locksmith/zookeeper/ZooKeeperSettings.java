package io.locksmith.zookeeper;

import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockUri;
import org.apache.zookeeper.common.PathUtils;

import java.time.Duration;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The settings of a {@code zookeeper://} URI, validated.
 *
 * @param connectString      {@code host:port,...} for the ZooKeeper client
 * @param basePath           where lock nodes live, e.g. {@code /locksmith}
 * @param sessionTimeout     the session timeout asked of the server (the server may narrow it)
 * @param connectionTimeout  how long to wait for a connection, at start and per operation
 * @param onSuspended        what a suspended connection means for held locks
 */
record ZooKeeperSettings(String connectString, String basePath, Duration sessionTimeout, Duration connectionTimeout,
                         OnSuspended onSuspended) {

    static final int DEFAULT_PORT = 2181;
    static final String DEFAULT_BASE_PATH = "/locksmith";
    static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(15);
    static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);

    static final String PARAM_SESSION_TIMEOUT = "sessionTimeout";
    static final String PARAM_CONNECTION_TIMEOUT = "connectionTimeout";
    static final String PARAM_ON_SUSPENDED = "onSuspended";

    /** What a SUSPENDED connection (no answer from the server, session maybe still alive) does to held locks. */
    enum OnSuspended {
        /** Report every held lock lost at once: the safe default, as Curator's own recipes advise. */
        LOSE,
        /** Keep the locks while the session may still live; report them lost if it does not come back. */
        WAIT
    }

    /**
     * Reads a {@code zookeeper://} URI.
     *
     * @throws LockConfigurationException naming the bad part
     */
    static ZooKeeperSettings from(LockUri uri) {
        if (uri.userInfo().isPresent()) {
            throw new LockConfigurationException("'" + uri + "' has user credentials; zookeeper:// does not"
                    + " support ZooKeeper authentication yet: remove 'user:password@'");
        }
        String connectString = uri.hosts(DEFAULT_PORT).stream().map(LockUri.HostPort::toString)
                .collect(Collectors.joining(","));
        String basePath = basePath(uri);
        Duration sessionTimeout = uri.duration(PARAM_SESSION_TIMEOUT, DEFAULT_SESSION_TIMEOUT);
        Duration connectionTimeout = uri.duration(PARAM_CONNECTION_TIMEOUT, DEFAULT_CONNECTION_TIMEOUT);
        if (sessionTimeout.toMillis() > Integer.MAX_VALUE || connectionTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new LockConfigurationException("'" + uri + "': sessionTimeout and connectionTimeout must be"
                    + " below 24 days");
        }
        if (sessionTimeout.toMillis() < 1 || connectionTimeout.toMillis() < 1) {
            throw new LockConfigurationException("'" + uri + "': sessionTimeout and connectionTimeout must be at"
                    + " least 1ms");
        }
        String mode = uri.string(PARAM_ON_SUSPENDED, "lose").strip().toLowerCase(Locale.ROOT);
        OnSuspended onSuspended = switch (mode) {
            case "lose" -> OnSuspended.LOSE;
            case "wait" -> OnSuspended.WAIT;
            default -> throw new LockConfigurationException("parameter '" + PARAM_ON_SUSPENDED + "' of '" + uri
                    + "' must be 'lose' or 'wait', was '" + mode + "'");
        };
        return new ZooKeeperSettings(connectString, basePath, sessionTimeout, connectionTimeout, onSuspended);
    }

    private static String basePath(LockUri uri) {
        String path = uri.path();
        if (path.isEmpty() || path.equals("/")) {
            return DEFAULT_BASE_PATH;
        }
        if (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        try {
            PathUtils.validatePath(path);
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException("'" + uri + "' has a path '" + uri.path()
                    + "' that is not a valid ZooKeeper path: " + e.getMessage(), e);
        }
        if (path.equals("/zookeeper") || path.startsWith("/zookeeper/")) {
            throw new LockConfigurationException("'" + uri + "': the path '" + path + "' is reserved by ZooKeeper");
        }
        return path;
    }

    /** For messages: the store without credentials. */
    String describe() {
        return "zookeeper://" + connectString + basePath;
    }
}
