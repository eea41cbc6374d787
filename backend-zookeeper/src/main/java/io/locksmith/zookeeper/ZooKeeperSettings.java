package io.locksmith.zookeeper;

import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockUri;
import org.apache.zookeeper.ClientCnxnSocketNetty;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
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
 * @param credentials        the digest identity of {@code user:password@}, or null for none
 * @param tls                TLS to the servers ({@code tls=true}), or null for plain TCP
 */
record ZooKeeperSettings(String connectString, String basePath, Duration sessionTimeout, Duration connectionTimeout,
                         OnSuspended onSuspended, Credentials credentials, Tls tls) {

    static final int DEFAULT_PORT = 2181;
    static final String DEFAULT_BASE_PATH = "/locksmith";
    static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(15);
    static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);

    static final String PARAM_SESSION_TIMEOUT = "sessionTimeout";
    static final String PARAM_CONNECTION_TIMEOUT = "connectionTimeout";
    static final String PARAM_ON_SUSPENDED = "onSuspended";
    static final String PARAM_TLS = "tls";
    static final String PARAM_TRUST_STORE = "trustStore";
    static final String PARAM_KEY_STORE = "keyStore";

    /**
     * TLS to the servers through the ZooKeeper client's Netty socket: {@code trustStore} holds the authorities the
     * servers' certificates must come from (none: the JVM's default), {@code keyStore} this client's certificate and
     * key for servers that ask for one ({@code ssl.clientAuth=need}). PEM files (a key unencrypted), or JKS/PKCS#12
     * by their extension. The servers' host names are checked against their certificates.
     */
    record Tls(Path trustStore, Path keyStore) {
    }

    /**
     * A ZooKeeper digest identity, {@code user:password} of the URI: the client authenticates with it, and every node
     * it creates carries an ACL that gives all rights to that identity alone ({@code CREATOR_ALL_ACL}).
     */
    record Credentials(String user, String password) {
        /** The identity as ZooKeeper's digest provider names it in ACLs: {@code user:base64(sha1(user:password))}. */
        String digestId() {
            try {
                return DigestAuthenticationProvider.generateDigest(user + ":" + password);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("this JVM has no SHA-1, which ZooKeeper's digest identities need", e);
            }
        }

        /** What {@code addAuthInfo("digest", ...)} takes. */
        byte[] authBytes() {
            return (user + ":" + password).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "Credentials[" + user + ", password hidden]";
        }
    }

    /** The ACL of every node this client creates: its identity alone when it has one, anyone's otherwise. */
    List<ACL> acl() {
        return credentials == null ? ZooDefs.Ids.OPEN_ACL_UNSAFE : ZooDefs.Ids.CREATOR_ALL_ACL;
    }

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
        Credentials credentials = null;
        if (uri.userInfo().isPresent()) {
            String user = uri.user().orElse("");
            String password = uri.password().orElse(null);
            if (user.isBlank() || password == null || password.isEmpty()) {
                throw new LockConfigurationException("'" + uri + "': ZooKeeper digest authentication needs both a user"
                        + " and a password ('user:password@'); the user info gives "
                        + (user.isBlank() ? "no user" : "no password"));
            }
            credentials = new Credentials(user, password);
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
        return new ZooKeeperSettings(connectString, basePath, sessionTimeout, connectionTimeout, onSuspended,
                credentials, tls(uri));
    }

    private static Tls tls(LockUri uri) {
        String mode = uri.string(PARAM_TLS, "false").strip().toLowerCase(Locale.ROOT);
        boolean on = switch (mode) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new LockConfigurationException("parameter '" + PARAM_TLS + "' of '" + uri
                    + "' must be 'true' or 'false', was '" + mode + "'");
        };
        Path trustStore = readableFile(uri, PARAM_TRUST_STORE);
        Path keyStore = readableFile(uri, PARAM_KEY_STORE);
        if (!on) {
            if (trustStore != null || keyStore != null) {
                throw new LockConfigurationException("'" + uri + "': " + PARAM_TRUST_STORE + " and " + PARAM_KEY_STORE
                        + " need " + PARAM_TLS + "=true (without it the client would connect in clear text)");
            }
            return null;
        }
        return new Tls(trustStore, keyStore);
    }

    private static Path readableFile(LockUri uri, String parameter) {
        String value = uri.string(parameter, "").strip();
        if (value.isEmpty()) {
            return null;
        }
        Path file = Path.of(value);
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new LockConfigurationException("parameter '" + parameter + "' of '" + uri + "' names '" + value
                    + "', which is not a readable file");
        }
        return file;
    }

    /** The ZooKeeper client's settings for {@link #tls}: its Netty socket, secure, with the stores given. */
    ZKClientConfig clientConfig() {
        ZKClientConfig config = new ZKClientConfig();
        if (tls == null) {
            return config;
        }
        config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, ClientCnxnSocketNetty.class.getName());
        ClientX509Util x509 = new ClientX509Util();
        try {
            config.setProperty(x509.getSslHostnameVerificationEnabledProperty(), "true");
            if (tls.trustStore() != null) {
                config.setProperty(x509.getSslTruststoreLocationProperty(), tls.trustStore().toString());
                config.setProperty(x509.getSslTruststoreTypeProperty(), storeType(tls.trustStore()));
            }
            if (tls.keyStore() != null) {
                config.setProperty(x509.getSslKeystoreLocationProperty(), tls.keyStore().toString());
                config.setProperty(x509.getSslKeystoreTypeProperty(), storeType(tls.keyStore()));
            }
        } finally {
            x509.close();
        }
        return config;
    }

    /** ZooKeeper reads a store's type from its extension, and knows no {@code .crt}: PEM unless it says otherwise. */
    private static String storeType(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".jks")) {
            return "JKS";
        }
        if (name.endsWith(".p12") || name.endsWith(".pfx")) {
            return "PKCS12";
        }
        return "PEM";
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

    /** For messages: the store, and the user without its password. */
    String describe() {
        return "zookeeper://" + (credentials == null ? "" : credentials.user() + "@") + connectString + basePath
                + (tls == null ? "" : " (TLS)");
    }
}
