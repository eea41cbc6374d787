package io.locksmith.lockctl;

import io.locksmith.LockStoreException;
import io.locksmith.spi.LockUri;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;

/** The {@link LockLister}s, by scheme. */
final class LockListers {

    /** For help texts. */
    static final String SUPPORTED = "redis://, rediss://";

    private LockListers() {
    }

    static Optional<LockLister> forScheme(String scheme) {
        return switch (scheme.toLowerCase(Locale.ROOT)) {
            case "redis", "rediss" -> Optional.of(LockListers::redis);
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
