package io.locksmith.lockctl;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;
import io.locksmith.spi.LockUri;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/** The {@link LockLister}s, by scheme. */
final class LockListers {

    /** For help texts. */
    static final String SUPPORTED = "redis://, rediss://, zookeeper://, etcd://, postgres://";

    private LockListers() {
    }

    static Optional<LockLister> forScheme(String scheme) {
        return switch (scheme.toLowerCase(Locale.ROOT)) {
            case "redis", "rediss" -> Optional.of(LockListers::redis);
            case "zookeeper", "zk" -> Optional.of(LockListers::zookeeper);
            case "etcd" -> Optional.of(LockListers::etcd);
            case "postgres", "postgresql" -> Optional.of(LockListers::postgres);
            default -> Optional.empty();
        };
    }

    /**
     * Redis keeps lock {@code NAME} in the hash {@code locksmith:{NAME}} (next to {@code :fence} counters without
     * TTL); SCAN walks the keyspace in small steps, so it does not block the server as KEYS would.
     */
    private static List<String> redis(LockUri uri, String prefix, Duration timeout) {
        LockUri.HostPort host = uri.hosts(6379).get(0);
        String password = uri.userInfo().map(info -> info.contains(":") ? info.substring(info.indexOf(':') + 1) : info)
                .orElse(null);
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis((int) timeout.toMillis()).socketTimeoutMillis((int) timeout.toMillis())
                .password(password).ssl(uri.scheme().equals("rediss")).clientName("lockctl-inspect").build();
        TreeSet<String> names = new TreeSet<>();
        try (Jedis jedis = new Jedis(new HostAndPort(host.host(), host.port()), config)) {
            String path = uri.path().startsWith("/") ? uri.path().substring(1) : uri.path();
            if (!path.isEmpty()) {
                jedis.select(Integer.parseInt(path));
            }
            ScanParams params = new ScanParams().match("locksmith:{" + globEscape(prefix) + "*}").count(500);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = jedis.scan(cursor, params, "hash");
                for (String key : page.getResult()) {
                    names.add(key.substring("locksmith:{".length(), key.length() - 1));
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        } catch (JedisConnectionException e) {
            throw new LockStoreException("cannot reach redis at " + host + ": " + e.getMessage(), e);
        }
        return new ArrayList<>(names);
    }

    /**
     * ZooKeeper keeps lock {@code NAME} as the container {@code BASE/percent-encoded(NAME)} (base: the URI's path,
     * default {@code /locksmith}); it is held while it has a sequential child {@code OWNER~0000000042}.
     */
    private static List<String> zookeeper(LockUri uri, String prefix, Duration timeout) {
        String connectString = uri.hosts(2181).stream().map(LockUri.HostPort::toString)
                .collect(Collectors.joining(","));
        String base = uri.path().isEmpty() || uri.path().equals("/") ? "/locksmith"
                : uri.path().endsWith("/") ? uri.path().substring(0, uri.path().length() - 1) : uri.path();
        TreeSet<String> names = new TreeSet<>();
        try (CuratorFramework curator = CuratorFrameworkFactory
                .builder().connectString(connectString).connectionTimeoutMs((int) timeout.toMillis())
                .sessionTimeoutMs(15_000).retryPolicy(new RetryOneTime(100)).build()) {
            curator.start();
            if (!curator.blockUntilConnected((int) timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new LockStoreException("cannot reach zookeeper at " + connectString + " within "
                        + timeout.toMillis() + " ms", null);
            }
            if (curator.checkExists().forPath(base) == null) {
                return List.of();
            }
            for (String child : curator.getChildren().forPath(base)) {
                String name = percentDecode(child);
                if (name == null || !name.startsWith(prefix)) {
                    continue;
                }
                List<String> nodes = curator.getChildren().forPath(base + "/" + child);
                if (nodes.stream().anyMatch(node -> node.matches(".*~[0-9]{10}"))) {
                    names.add(name);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockStoreException("interrupted while listing " + connectString, e);
        } catch (LockStoreException e) {
            throw e;
        } catch (Exception e) {
            throw new LockStoreException("cannot list locks on zookeeper at " + connectString + ": " + e.getMessage(), e);
        }
        return new ArrayList<>(names);
    }

    /**
     * etcd keeps one key per holder and waiter: {@code PREFIX + encoded(NAME) + "/" + encoded(OWNER)} (prefix: the
     * URI's {@code prefix} parameter, default {@code /locksmith/}; {@code %} and {@code /} percent-encoded).
     */
    private static List<String> etcd(LockUri uri, String prefix, Duration timeout) {
        String keyPrefix = uri.parameter("prefix").orElse("/locksmith/");
        List<String> endpoints = uri.hosts(2379).stream().map(host -> "http://" + host).toList();
        TreeSet<String> names = new TreeSet<>();
        try (Client client = Client.builder().endpoints(endpoints.toArray(String[]::new))
                .connectTimeout(timeout).build()) {
            ByteSequence start = ByteSequence.from(keyPrefix, StandardCharsets.UTF_8);
            var response = client.getKVClient().get(start, GetOption.builder().isPrefix(true)
                    .withKeysOnly(true).build()).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            for (var keyValue : response.getKvs()) {
                String rest = keyValue.getKey().toString(StandardCharsets.UTF_8).substring(keyPrefix.length());
                int slash = rest.lastIndexOf('/');
                String name = slash < 0 ? null : percentDecode(rest.substring(0, slash));
                if (name != null && name.startsWith(prefix)) {
                    names.add(name);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockStoreException("interrupted while listing " + endpoints, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new LockStoreException("cannot list locks on etcd at " + String.join(",", endpoints) + ": "
                    + (e instanceof TimeoutException ? "no answer within " + timeout.toMillis() + " ms"
                    : e.getCause().getMessage()), e);
        }
        return new ArrayList<>(names);
    }

    /**
     * PostgreSQL keeps one row per held name in {@code SCHEMA.locksmith_locks} (schema: the URI's {@code schema}
     * parameter, default {@code public}); a row whose {@code expires_at} passed by the server's clock is free.
     */
    private static List<String> postgres(LockUri uri, String prefix, Duration timeout) {
        String hosts = uri.hosts(5432).stream().map(LockUri.HostPort::toString).collect(Collectors.joining(","));
        String database = uri.path().startsWith("/") ? uri.path().substring(1) : uri.path();
        String schema = uri.parameter("schema").orElse("public");
        if (!schema.matches("[a-z_][a-z0-9_$]{0,62}")) {
            throw new LockConfigurationException("parameter 'schema' must be a plain lower-case SQL"
                    + " identifier, was '" + schema + "'");
        }
        long seconds = Math.max(1, (timeout.toMillis() + 999) / 1000);
        Properties properties = new Properties();
        uri.userInfo().ifPresent(info -> {
            int colon = info.indexOf(':');
            properties.setProperty("user", colon < 0 ? info : info.substring(0, colon));
            if (colon >= 0) {
                properties.setProperty("password", info.substring(colon + 1));
            }
        });
        String url = "jdbc:postgresql://" + hosts + "/" + URLEncoder.encode(database, StandardCharsets.UTF_8)
                + "?targetServerType=primary&connectTimeout=" + seconds + "&socketTimeout=" + seconds
                + "&ApplicationName=lockctl-inspect";
        List<String> names = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(url, properties);
             PreparedStatement query = connection.prepareStatement("SELECT name FROM " + schema
                     + ".locksmith_locks WHERE expires_at > clock_timestamp() AND starts_with(name, ?) ORDER BY name")) {
            query.setString(1, prefix);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    names.add(rows.getString(1));
                }
            }
        } catch (SQLException e) {
            throw new LockStoreException("cannot list locks on postgres at " + hosts + "/" + database + ": "
                    + e.getMessage(), e);
        }
        return names;
    }

    /** Percent-decoding of UTF-8 bytes; null if {@code text} is not well encoded (not a lock of ours). */
    static String percentDecode(String text) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%') {
                if (i + 2 >= text.length()) {
                    return null;
                }
                int high = Character.digit(text.charAt(i + 1), 16);
                int low = Character.digit(text.charAt(i + 2), 16);
                if (high < 0 || low < 0) {
                    return null;
                }
                bytes.write(high * 16 + low);
                i += 2;
            } else {
                byte[] raw = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(raw, 0, raw.length);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static String globEscape(String text) {
        StringBuilder escaped = new StringBuilder();
        for (char c : text.toCharArray()) {
            if ("*?[]\\".indexOf(c) >= 0) {
                escaped.append('\\');
            }
            escaped.append(c);
        }
        return escaped.toString();
    }
}
