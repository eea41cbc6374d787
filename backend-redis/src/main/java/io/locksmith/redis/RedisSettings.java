package io.locksmith.redis;

import io.locksmith.LockConfigurationException;
import io.locksmith.redis.RedisCommands.ReplicaAck;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.PasswordFile;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a Redis URI says, checked once: deployment, hosts, credentials, TLS and the authorities it trusts ({@code tls},
 * null without TLS), database, transport and timeouts.
 * Grammar and parameters: {@code docs/REDIS.md}.
 */
record RedisSettings(Deployment deployment, List<LockUri.HostPort> hosts, String masterName, int database,
                     String user, String password, PasswordFile passwordFile, String sentinelPassword, boolean ssl,
                     RedisTls tls,
                     Transport transport,
                     Duration timeout, Duration connectTimeout, int poolSize, ReplicaAck replicaAck,
                     Map<LockUri.HostPort, LockUri.HostPort> natMap) {

    static final int DEFAULT_PORT = 6379;
    static final int DEFAULT_SENTINEL_PORT = 26379;
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    /**
     * Opening a Redisson connection starts its Netty pipeline and runs its handshake commands, which in a fresh JVM
     * on a busy machine took over 2 s (7-8 s at load 20): Redisson's own default, 10 s, not the command time-out.
     */
    static final Duration DEFAULT_REDISSON_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /**
     * Lettuce's connect and hand-shake bound, when the command time-out is shorter: its first connection in a fresh JVM
     * missed 1 s bounds at load 21-25 ("Unable to connect"), yet the bound must stay short, since a connection dropped
     * after a silent blip is opened again within it while calls wait (TCK R7.7 rides out a 2 s blip within 8 s).
     */
    static final Duration MIN_LETTUCE_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofMillis(100);
    static final int DEFAULT_SENTINEL_WAIT_REPLICAS = 1;
    /** As Sentinel: a shard's primary cut off from its replicas must not grant what a promoted replica forgets. */
    static final int DEFAULT_CLUSTER_WAIT_REPLICAS = 1;

    enum Deployment { SINGLE, SENTINEL, REDLOCK, CLUSTER }

    enum Transport { JEDIS, REDISSON, LETTUCE }

    static RedisSettings parse(LockUri uri) {
        String scheme = uri.scheme();
        Deployment deployment = switch (scheme) {
            case "redis", "rediss" -> Deployment.SINGLE;
            case "redis-sentinel", "rediss-sentinel" -> Deployment.SENTINEL;
            case "redlock" -> Deployment.REDLOCK;
            case "redis-cluster", "rediss-cluster" -> Deployment.CLUSTER;
            default -> throw new LockConfigurationException("'" + uri + "' is not a Redis URI");
        };
        boolean ssl = scheme.startsWith("rediss") || (deployment == Deployment.REDLOCK && uri.bool("ssl", false));
        List<LockUri.HostPort> hosts = uri.hosts(deployment == Deployment.SENTINEL ? DEFAULT_SENTINEL_PORT : DEFAULT_PORT);
        String masterName = null;
        String databasePart;
        if (deployment == Deployment.SENTINEL) {
            String[] parts = uri.path().replaceFirst("^/", "").split("/", -1);
            masterName = parts[0];
            if (masterName.isEmpty() || parts.length > 2) {
                throw new LockConfigurationException("'" + uri + "' must name the Sentinel master group as its path,"
                        + " e.g. redis-sentinel://h1:26379,h2:26379/mymaster or .../mymaster/0 for database 0");
            }
            databasePart = parts.length == 2 ? parts[1] : "";
        } else if (deployment == Deployment.CLUSTER) {
            databasePart = uri.path().replaceFirst("^/", "");
            if (!databasePart.isEmpty() && !databasePart.equals("0")) {
                throw new LockConfigurationException("'" + uri + "' has path '" + uri.path() + "'; Redis Cluster has"
                        + " database 0 only: leave the path out (redis-cluster://h1:7000,h2:7001)");
            }
        } else {
            if (deployment == Deployment.SINGLE && hosts.size() > 1) {
                throw new LockConfigurationException("'" + uri + "' names " + hosts.size() + " hosts; " + scheme
                        + ":// takes one. For several independent primaries use redlock://h1,h2,h3; for"
                        + " Sentinel use redis-sentinel://s1:26379,s2:26379/mymaster; for Redis Cluster use"
                        + " redis-cluster://h1:7000,h2:7001");
            }
            if (deployment == Deployment.REDLOCK && hosts.size() < 3) {
                throw new LockConfigurationException("'" + uri + "' names " + hosts.size() + " host(s); RedLock needs"
                        + " at least 3 independent primaries (an odd number: 3 or 5)");
            }
            databasePart = uri.path().replaceFirst("^/", "");
        }
        int database = parseDatabase(databasePart, uri);
        String user = null;
        String password = null;
        PasswordFile passwordFile = PasswordFile.of(uri).orElse(null);
        if (passwordFile != null) {
            // redis://app@host?passwordFile=...: the user info is the ACL user (without the file it would be the
            // password, as Lettuce reads redis://secret@host); redis://host?passwordFile=... is the default user.
            user = uri.userInfo().orElse(null);
        } else if (uri.userInfo().isPresent()) {
            String info = uri.userInfo().get();
            int colon = info.indexOf(':');
            if (colon < 0) {
                password = info; // as Lettuce reads redis://secret@host
            } else {
                user = colon == 0 ? null : info.substring(0, colon);
                password = info.substring(colon + 1);
            }
        }
        String sentinelPassword = deployment == Deployment.SENTINEL ? uri.parameter("sentinelPassword").orElse(null) : null;
        Transport transport = switch (uri.string("client", "jedis").strip().toLowerCase(Locale.ROOT)) {
            case "jedis" -> Transport.JEDIS;
            case "redisson" -> Transport.REDISSON;
            case "lettuce" -> Transport.LETTUCE;
            default -> throw new LockConfigurationException("parameter 'client' of '" + uri + "' must be jedis, redisson or lettuce, was '"
                    + uri.parameters().get("client") + "'");
        };
        Duration timeout = uri.duration("timeout", DEFAULT_TIMEOUT);
        // Jedis connects within the command time-out; the Netty clients' connection set-up gets its own bound. A lock
        // call stays bounded by its own wait or the command time-out, and an outage is still reported at once.
        Duration connectTimeout = uri.duration("connectTimeout", switch (transport) {
            case JEDIS -> timeout;
            case REDISSON -> max(timeout, DEFAULT_REDISSON_CONNECT_TIMEOUT);
            case LETTUCE -> max(timeout, MIN_LETTUCE_CONNECT_TIMEOUT);
        });
        int poolSize = uri.integer("poolSize", 8, 1, 1024);
        return new RedisSettings(deployment, hosts, masterName, database, user, password, passwordFile,
                sentinelPassword, ssl,
                RedisTls.parse(uri, ssl), transport, timeout, connectTimeout, poolSize, replicaAck(uri, deployment), natMap(uri, deployment));
    }

    /**
     * {@code natMap=host:port=host:port,...}: the address a client reaches a Redis node at, for each address the
     * Sentinels announce (a primary or replica behind NAT, a Kubernetes service, a proxy). Sentinel URIs only:
     * elsewhere the URI names the reachable addresses itself. Addresses not listed are used as announced.
     */
    static Map<LockUri.HostPort, LockUri.HostPort> natMap(LockUri uri, Deployment deployment) {
        String text = uri.parameter("natMap").orElse(null);
        if (text == null) {
            return Map.of();
        }
        if (deployment != Deployment.SENTINEL && deployment != Deployment.CLUSTER) {
            throw new LockConfigurationException("parameter 'natMap' of '" + uri + "' applies to redis-sentinel:// and"
                    + " redis-cluster:// only, whose Sentinels or nodes announce the nodes' addresses; name the reachable"
                    + " addresses in the URI instead");
        }
        Map<LockUri.HostPort, LockUri.HostPort> map = new LinkedHashMap<>();
        for (String entry : text.split(",", -1)) {
            String[] sides = entry.strip().split("=", -1);
            if (sides.length != 2) {
                throw new LockConfigurationException("parameter 'natMap' of '" + uri + "' has entry '" + entry
                        + "'; expected announced-host:port=reachable-host:port, entries separated by commas");
            }
            LockUri.HostPort announced = natAddress(sides[0], uri);
            if (map.put(announced, natAddress(sides[1], uri)) != null) {
                throw new LockConfigurationException("parameter 'natMap' of '" + uri + "' maps " + announced + " twice");
            }
        }
        return Collections.unmodifiableMap(map);
    }

    private static LockUri.HostPort natAddress(String text, LockUri uri) {
        String address = text.strip();
        int colon = address.lastIndexOf(':');
        String host = colon > 0 ? address.substring(0, colon) : "";
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (host.isEmpty() || port < 1 || port > 65535) {
            throw new LockConfigurationException("parameter 'natMap' of '" + uri + "' has address '" + address
                    + "'; expected host:port with a port in 1..65535");
        }
        return new LockUri.HostPort(host, port);
    }

    /**
     * The replicas that must acknowledge acquire and renew. Sentinel waits for one by default: without it a
     * primary cut off from its replicas and Sentinels keeps renewing its holders' locks while a replica whose
     * copy expired is promoted and grants them again (REDIS.md, "What Sentinel guarantees"). Redis Cluster waits
     * for one replica of the lock's shard for the same reason. {@code waitReplicas=0} opts out. Elsewhere nothing
     * is waited for unless asked.
     */
    static ReplicaAck replicaAck(LockUri uri, Deployment deployment) {
        return replicaAck(uri, switch (deployment) {
            case SENTINEL -> DEFAULT_SENTINEL_WAIT_REPLICAS;
            case CLUSTER -> DEFAULT_CLUSTER_WAIT_REPLICAS;
            default -> 0;
        });
    }

    /** As {@link #replicaAck(LockUri, Deployment)}, with {@code defaultReplicas} when the URI names none. */
    static ReplicaAck replicaAck(LockUri uri, int defaultReplicas) {
        int replicas = uri.integer("waitReplicas", defaultReplicas, 0, 100);
        if (replicas == 0) {
            if (uri.parameters().containsKey("waitTimeout")) {
                throw new LockConfigurationException("parameter 'waitTimeout' of '" + uri
                        + "' has no effect without waitReplicas=N (N >= 1)");
            }
            return null;
        }
        return new ReplicaAck(replicas, uri.duration("waitTimeout", DEFAULT_WAIT_TIMEOUT));
    }

    private static int parseDatabase(String text, LockUri uri) {
        if (text.isEmpty()) {
            return 0;
        }
        try {
            int database = Integer.parseInt(text);
            if (database < 0) {
                throw new NumberFormatException();
            }
            return database;
        } catch (NumberFormatException e) {
            throw new LockConfigurationException("'" + uri + "' has path '" + uri.path() + "'; the path is the database"
                    + " number, e.g. /0");
        }
    }

    /** How long a command may take: the command timeout, plus the WAIT timeout when replicas must acknowledge. */
    Duration commandTimeout() {
        return replicaAck == null ? timeout : timeout.plus(replicaAck.timeout());
    }

    /**
     * The password to log in with now: {@code passwordFile}'s current content (read at each call, so every new
     * connection uses the file as it is then), or the URI's; null for none.
     */
    String currentPassword() {
        return passwordFile != null ? passwordFile.read() : password;
    }

    /** Whether the client authenticates to the data nodes: a password in the URI or {@code passwordFile}. */
    boolean hasPassword() {
        return password != null || passwordFile != null;
    }

    /**
     * The deployment for messages, without credentials, e.g. {@code redis://127.0.0.1:6379/0 (jedis)}; with a password
     * file, its path ({@code (jedis, passwordFile=/run/secrets/redis)}).
     */
    String describe() {
        String transportName = transport.name().toLowerCase(Locale.ROOT)
                + (passwordFile == null ? "" : ", " + passwordFile);
        return switch (deployment) {
            case SINGLE -> (ssl ? "rediss://" : "redis://") + hosts.get(0) + "/" + database + " (" + transportName + ")";
            case SENTINEL -> (ssl ? "rediss-sentinel://" : "redis-sentinel://") + joined() + "/" + masterName + "/"
                    + database + " (" + transportName + ")";
            case REDLOCK -> "redlock://" + joined() + "/" + database + " (" + transportName + ", majority "
                    + (hosts.size() / 2 + 1) + " of " + hosts.size() + ")";
            case CLUSTER -> (ssl ? "rediss-cluster://" : "redis-cluster://") + joined() + " (" + transportName + ")";
        };
    }

    /** One RedLock node, for messages. */
    String describeNode(LockUri.HostPort host) {
        return (ssl ? "rediss://" : "redis://") + host + "/" + database + " (" + transport.name().toLowerCase(Locale.ROOT)
                + (passwordFile == null ? "" : ", " + passwordFile) + ")";
    }

    private String joined() {
        StringBuilder text = new StringBuilder();
        for (LockUri.HostPort host : hosts) {
            text.append(text.length() == 0 ? "" : ",").append(host);
        }
        return text.toString();
    }

    @Override
    public String toString() {
        return describe(); // never the passwords
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
