package io.locksmith.lockctl.doctor;

import io.locksmith.LockConfigurationException;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.redis.RedisClientSettings;
import io.locksmith.spi.LockUri;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.resps.Slowlog;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Redis checks, read-only, with Jedis connecting as the lock client does (its credentials and TLS, read by the
 * backend): round trip, role and replication lag, eviction policy, persistence, slow lock scripts, the server clock,
 * and who can reach and change the locks (TLS, authentication, the user's ACL against the backend's own check,
 * {@code protected-mode}, and the Sentinels' password). For {@code redis-sentinel://} the Sentinels are asked for the
 * master first; for {@code redlock://} every master is checked; {@code redis-cluster://} gets the cluster's own
 * checks ({@link ClusterDoctor}) and these on every primary.
 */
final class RedisDoctor implements StoreDoctor {

    private static final int DEFAULT_PORT = 6379;
    private static final String CLIENT_NAME = "lockctl-doctor";
    private static final int DEFAULT_SENTINEL_PORT = 26379;
    private static final Set<String> LOCK_COMMANDS = Set.of("EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL",
            "FCALL_RO", "SET", "DEL", "PEXPIRE", "EXPIRE", "HSET", "INCR");

    @Override
    public Set<String> schemes() {
        return Set.of("redis", "rediss", "redis-sentinel", "rediss-sentinel", "redlock", "redis-cluster", "rediss-cluster");
    }

    @Override
    public List<Finding> examine(LockUri uri, Duration timeout) {
        // The lock client's own credentials and TLS (trustStore, host name check, keyStore), read by the backend.
        DefaultJedisClientConfig config = RedisClientSettings.nodeConfig(uri, timeout, CLIENT_NAME, true);
        List<Finding> findings = new ArrayList<>();
        List<HostAndPort> masters = new ArrayList<>();
        boolean sentinel = uri.scheme().equals("redis-sentinel") || uri.scheme().equals("rediss-sentinel");
        boolean cluster = uri.scheme().equals("redis-cluster") || uri.scheme().equals("rediss-cluster");
        int waitReplicas = waitReplicas(uri, sentinel || cluster);
        if (cluster) {
            return ClusterDoctor.examine(uri, config, waitReplicas, uri.duration("lease", LockOptions.DEFAULT_LEASE_TIME),
                    DEFAULT_PORT);
        }
        if (sentinel) {
            SentinelView view = masterFromSentinels(uri, timeout, findings);
            findings.add(sentinelAuthentication(uri, timeout, view.masterName()));
            masters.add(view.master());
            findings.addAll(sentinelFindings(view, waitReplicas, uri.duration("lease", LockOptions.DEFAULT_LEASE_TIME)));
            findings.add(minReplicas(view.master(), config, waitReplicas));
        } else {
            for (LockUri.HostPort host : uri.hosts(DEFAULT_PORT)) {
                masters.add(new HostAndPort(host.host(), host.port()));
            }
        }
        int reached = 0;
        LockStoreException lastFailure = null;
        for (HostAndPort master : masters) {
            try {
                findings.addAll(examineNode(master, config, waitReplicas));
                findings.addAll(security(master, uri, config, timeout));
                reached++;
            } catch (LockStoreException e) {
                lastFailure = e;
                findings.add(Finding.fail("redis " + master + " reachable", e.getMessage(),
                        "start the node or fix the address; RedLock needs a majority of its masters"));
            }
        }
        if (reached == 0) {
            throw lastFailure;
        }
        if (uri.scheme().equals("redlock")) {
            findings.add(redlockFinding(masters.size(), reached));
        }
        return findings;
    }

    private static Finding redlockFinding(int masters, int reached) {
        String check = "redlock quorum";
        String detail = reached + " of " + masters + " masters reachable";
        if (reached <= masters / 2) {
            return Finding.fail(check, detail + ": no majority, no lock can be granted", "bring the masters back");
        }
        return Finding.warn(check, detail + "; RedLock fencing tokens increase across majorities only while every master"
                        + " keeps its counter (a master restarted without its data can break the order), and its"
                        + " exclusion is only as safe as its timing assumptions",
                "run every master with appendonly yes and appendfsync always (see REDIS.md, Fencing on RedLock), or"
                        + " prefer a single-primary or consensus store (redis://, zookeeper://, etcd://)");
    }

    /** What the Sentinel asked about the master group says. */
    private record SentinelView(HostAndPort master, String masterName, Map<String, String> masterState,
                                List<Map<String, String>> replicas) {
    }

    private static SentinelView masterFromSentinels(LockUri uri, Duration timeout, List<Finding> findings) {
        String path = uri.path().startsWith("/") ? uri.path().substring(1) : uri.path();
        String masterName = path.contains("/") ? path.substring(0, path.indexOf('/')) : path;
        if (masterName.isEmpty()) {
            throw new LockConfigurationException("'" + uri + "' names no master; use redis-sentinel://s1:26379,s2:26379/mymaster");
        }
        DefaultJedisClientConfig sentinelConfig = RedisClientSettings.sentinelConfig(uri, timeout, CLIENT_NAME, true);
        List<LockUri.HostPort> sentinels = uri.hosts(DEFAULT_SENTINEL_PORT);
        LockStoreException failure = null;
        for (LockUri.HostPort sentinel : sentinels) {
            try (Jedis jedis = new Jedis(new HostAndPort(sentinel.host(), sentinel.port()), sentinelConfig)) {
                List<String> address = jedis.sentinelGetMasterAddrByName(masterName);
                if (address == null || address.size() < 2) {
                    throw new LockConfigurationException("Sentinel " + sentinel + " knows no master named '" + masterName + "'");
                }
                Map<String, String> masterState = jedis.sentinelMaster(masterName);
                List<Map<String, String>> replicas = jedis.sentinelReplicas(masterName);
                String check = "sentinel " + masterName;
                int known = 1 + Integer.parseInt(masterState.getOrDefault("num-other-sentinels", "0"));
                String detail = "master at " + address.get(0) + ":" + address.get(1) + " (asked " + sentinel + "); "
                        + known + " Sentinel(s) in the group, quorum " + masterState.getOrDefault("quorum", "?") + ", "
                        + sentinels.size() + " in the URI";
                findings.add(known < 3 || sentinels.size() < 3
                        ? Finding.warn(check, detail, "run 3 or more Sentinels on separate machines and list them all in the"
                        + " URI, so a failover has a majority and the client finds one")
                        : Finding.ok(check, detail));
                return new SentinelView(new HostAndPort(address.get(0), Integer.parseInt(address.get(1))), masterName,
                        masterState, replicas);
            } catch (JedisConnectionException e) {
                failure = new LockStoreException("cannot reach Sentinel at " + sentinel + ": " + e.getMessage(), e);
            }
        }
        throw failure;
    }

    /**
     * Whether the Sentinels let a client in without a password: whoever may talk to them can order a failover or
     * point the group at a server of theirs, and the lock clients follow the Sentinels there.
     */
    private static Finding sentinelAuthentication(LockUri uri, Duration timeout, String masterName) {
        String check = "sentinel " + masterName + " authentication";
        DefaultJedisClientConfig anonymous = RedisClientSettings.sentinelConfig(uri, timeout, null, false);
        for (LockUri.HostPort sentinel : uri.hosts(DEFAULT_SENTINEL_PORT)) {
            try (Jedis jedis = new Jedis(new HostAndPort(sentinel.host(), sentinel.port()), anonymous)) {
                jedis.ping();
                return Finding.warn(check, "the Sentinel at " + sentinel + " answers a client without a password:"
                                + " anyone who reaches the Sentinels can order a failover (SENTINEL FAILOVER) or point the"
                                + " group at a server of their own (SENTINEL REMOVE, MONITOR), and the lock clients follow"
                                + " the Sentinels to it",
                        "requirepass in every sentinel.conf (and sentinel sentinel-pass for their own links), then"
                                + " sentinelPassword=... in the URI (REDIS.md, Sentinel)");
            } catch (JedisDataException e) {
                return Finding.ok(check, "the Sentinels refuse clients without a password (asked " + sentinel + ");"
                        + (RedisClientSettings.hasSentinelPassword(uri) ? " the URI's sentinelPassword is accepted"
                        : " the URI gives no sentinelPassword"));
            } catch (JedisConnectionException e) {
                // the next Sentinel
            }
        }
        return Finding.warn(check, "no Sentinel answered a second connection: cannot tell", "");
    }

    /**
     * Who can reach and change the locks on {@code node}: TLS as the URI sets it, the user this URI logs in as and
     * whether the server lets clients in without a password, that user's rights against what a lock client needs
     * (the backend's own start-up check) and beyond, and {@code protected-mode}.
     */
    static List<Finding> security(HostAndPort node, LockUri uri, DefaultJedisClientConfig config, Duration timeout) {
        String prefix = "redis " + node + " ";
        List<Finding> findings = new ArrayList<>();
        boolean anonymousAllowed = anonymousAllowed(node, uri, timeout);
        try (Jedis jedis = new Jedis(node, config)) {
            findings.add(tls(jedis, prefix, uri));
            String user;
            String whoAmI;
            try {
                user = jedis.aclWhoAmI();
                whoAmI = "'" + user + "' (ACL WHOAMI)";
            } catch (JedisDataException e) {
                user = RedisClientSettings.user(uri).orElse("default");
                whoAmI = "'" + user + "' (from the URI; ACL WHOAMI refused)";
            }
            findings.add(authentication(prefix, user, whoAmI, anonymousAllowed, uri));
            findings.add(acl(jedis, prefix, user, uri));
            findings.add(protectedMode(jedis, prefix, anonymousAllowed));
        } catch (JedisConnectionException e) {
            throw new LockStoreException("cannot reach redis at " + node + ": " + rootMessage(e), e);
        }
        return findings;
    }

    /** Whether a client that gives no user and no password may run a command (the default user's {@code nopass}). */
    private static boolean anonymousAllowed(HostAndPort node, LockUri uri, Duration timeout) {
        try (Jedis jedis = new Jedis(node, RedisClientSettings.nodeConfig(uri, timeout, null, false))) {
            jedis.ping();
            return true;
        } catch (JedisDataException e) {
            return false; // NOAUTH
        } catch (JedisConnectionException e) {
            return false; // refused before a command: a client certificate asked for, or the connection closed
        }
    }

    private static Finding tls(Jedis jedis, String prefix, LockUri uri) {
        String check = prefix + "TLS";
        String scheme = uri.scheme() + "://";
        if (!RedisClientSettings.usesTls(uri)) {
            return Finding.warn(check, "off (" + scheme + "): the password (AUTH) and every lock's name and holder cross"
                            + " the network in clear text, and anyone between can pose as the server",
                    "rediss:// (ssl=true on redlock://) with trustStore=<CA PEM> against the server's tls-port (REDIS.md, TLS)");
        }
        String clients;
        try {
            String authClients = jedis.configGet("tls-auth-clients").getOrDefault("tls-auth-clients", "?");
            clients = switch (authClients) {
                case "yes" -> "; the server requires a client certificate (tls-auth-clients yes)";
                case "optional" -> "; the server checks a client certificate if one is sent (tls-auth-clients optional)";
                default -> "; the server asks for no client certificate (tls-auth-clients " + authClients + ")";
            };
        } catch (JedisDataException e) {
            clients = "";
        }
        return Finding.ok(check, "on (" + scheme + "), " + RedisClientSettings.tlsDescription(uri).orElse("") + clients);
    }

    private static Finding authentication(String prefix, String user, String whoAmI, boolean anonymousAllowed,
                                          LockUri uri) {
        String check = prefix + "authentication";
        if (anonymousAllowed && user.equals("default")) {
            return Finding.warn(check, "none: this URI is the default user " + whoAmI + ", which needs no password, so"
                            + " any client that reaches the port can take, extend or delete any lock",
                    "a password for the default user (requirepass) or ACL SETUSER default off, and a user of its own"
                            + " for the locks with the ACL of REDIS.md (Access control): redis://locksmith:PASSWORD@...");
        }
        if (anonymousAllowed) {
            return Finding.warn(check, "logged in as " + whoAmI + ", but the server lets clients in without a password"
                            + " as the default user: any client that reaches the port can do what that user may",
                    "ACL SETUSER default off (or requirepass): REDIS.md, Access control");
        }
        String password = RedisClientSettings.hasPassword(uri) ? "with a password from the URI" : "without a password";
        return Finding.ok(check, "logged in as " + whoAmI + " " + password + "; the server refuses clients without one");
    }

    private static Finding acl(Jedis jedis, String prefix, String user, LockUri uri) {
        String check = prefix + "ACL";
        List<String> refused;
        List<String> beyond;
        try {
            if (!RedisClientSettings.canCheckAcl(jedis)) {
                return Finding.warn(check, "cannot tell: the server cannot be asked about a user's rights"
                        + " (redis.acl_check_cmd, Redis 7.0 and later)", "check the user's rights against REDIS.md,"
                        + " Access control");
            }
            refused = RedisClientSettings.refusedLockCommands(jedis, uri);
            beyond = RedisClientSettings.allowedBeyondLocks(jedis);
        } catch (JedisDataException e) {
            return Finding.fail(check, "user '" + user + "' may not run the lock scripts (" + e.getMessage()
                    + "): a lock client refuses to start", "grant the user the ACL of REDIS.md, Access control");
        }
        if (!refused.isEmpty()) {
            return Finding.fail(check, "user '" + user + "' may not run what a lock client sends: "
                            + String.join(", ", refused) + ": a lock client refuses to start (the check it makes at start)",
                    "grant the user the ACL of REDIS.md (Access control): the commands, the keys ~locksmith:* and"
                            + " ~locksmith-registry:*, and the channels &locksmith:*");
        }
        if (!beyond.isEmpty()) {
            return Finding.warn(check, "user '" + user + "' may run what a lock client sends, and more: "
                            + String.join(", ", beyond) + ": an application (or a stolen password) with this user can"
                            + " delete every lock and fencing counter, or reconfigure the server",
                    "a user limited to the ACL of REDIS.md (Access control): ACL SETUSER locksmith reset on >PASSWORD"
                            + " ~locksmith:* ~locksmith-registry:* &locksmith:* -@all +evalsha +eval ...");
        }
        return Finding.ok(check, "user '" + user + "' may run what a lock client sends on ~locksmith:*,"
                + " ~locksmith-registry:* and &locksmith:*, and none of " + String.join(", ",
                io.locksmith.redis.RedisClientSettings.beyondLocksNames()));
    }

    private static Finding protectedMode(Jedis jedis, String prefix, boolean anonymousAllowed) {
        String check = prefix + "protected-mode";
        String mode;
        try {
            mode = jedis.configGet("protected-mode").getOrDefault("protected-mode", "?");
        } catch (JedisDataException e) {
            return anonymousAllowed
                    ? Finding.warn(check, "CONFIG GET refused; cannot tell, and the default user needs no password",
                    "protected-mode yes (its default) and a password for the default user")
                    : Finding.ok(check, "not readable by this user (CONFIG GET refused); the server refuses clients"
                    + " without a password, so it does not matter");
        }
        if (!anonymousAllowed) {
            return Finding.ok(check, mode + "; the server refuses clients without a password, so it does not matter");
        }
        if (mode.equals("no")) {
            return Finding.warn(check, "no, and the default user needs no password: clients from any machine that"
                    + " reaches the port get in", "protected-mode yes, and a password for the default user (or ACL"
                    + " SETUSER default off)");
        }
        return Finding.ok(check, mode + ": while the default user needs no password, the server refuses clients from"
                + " other machines");
    }

    /**
     * {@code waitReplicas} as the client reads it: Sentinel and Cluster wait for one replica (of the shard) unless
     * the URI says otherwise.
     */
    private static int waitReplicas(LockUri uri, boolean replicated) {
        return uri.integer("waitReplicas", replicated ? 1 : 0, 0, 100);
    }

    private static List<Finding> sentinelFindings(SentinelView view, int waitReplicas, Duration lease) {
        List<Finding> findings = new ArrayList<>();
        String prefix = "sentinel " + view.masterName() + " ";
        int healthy = 0;
        for (Map<String, String> replica : view.replicas()) {
            String flags = replica.getOrDefault("flags", "");
            if (!flags.contains("s_down") && !flags.contains("o_down") && !flags.contains("disconnected")
                    && "ok".equals(replica.getOrDefault("master-link-status", "ok"))) {
                healthy++;
            }
        }
        String replicas = healthy + " of " + view.replicas().size() + " replica(s) up";
        if (waitReplicas == 0) {
            findings.add(Finding.warn(prefix + "replicas", replicas + "; waitReplicas=0, fenced only: a primary cut off from"
                            + " its replicas and Sentinels keeps renewing its holders' locks while a replica is promoted and"
                            + " grants them again, so two holders believe they hold the lock; only fencing tokens checked"
                            + " by the resource stop the stale writes",
                    "remove waitReplicas=0 from the URI (the default waits for one replica) and run 2 or more replicas"));
        } else if (healthy < waitReplicas) {
            findings.add(Finding.fail(prefix + "replicas", replicas + ", waitReplicas=" + waitReplicas + ": no acquire or"
                            + " renewal can be acknowledged now, so nothing can be locked",
                    "bring replicas back (or start more), or lower waitReplicas"));
        } else if (healthy == waitReplicas) {
            findings.add(Finding.warn(prefix + "replicas", replicas + ", waitReplicas=" + waitReplicas + ": after a failover"
                            + " the promoted primary has " + (healthy - 1) + " replica(s) left to acknowledge, so the lock is"
                            + " unavailable (acquire and renew fail) until the old primary returns as a replica",
                    "run " + (waitReplicas + 1) + " or more replicas"));
        } else {
            findings.add(Finding.ok(prefix + "replicas", replicas + ", waitReplicas=" + waitReplicas + ": acquire and renew"
                    + " wait for " + waitReplicas + "; after a failover " + (healthy - 1) + " remain to acknowledge"));
        }

        long downAfter = Long.parseLong(view.masterState().getOrDefault("down-after-milliseconds", "30000"));
        String check = prefix + "down-after-milliseconds";
        String detail = "down-after " + downAfter + " ms, lease " + lease.toMillis() + " ms";
        if (waitReplicas == 0 && downAfter >= lease.toMillis()) {
            findings.add(Finding.warn(check, detail + ": by the time a cut-off primary is declared down, the replicas'"
                            + " copies of its locks have expired, so the promoted replica grants them at once while their"
                            + " holders still renew on the old primary",
                    "wait for a replica (remove waitReplicas=0)"));
        } else if (downAfter >= lease.toMillis()) {
            findings.add(Finding.ok(check, detail + ": a holder on a primary that fails or is cut off loses its lease"
                    + " (STORE_UNREACHABLE) before the Sentinels fail over; every lock is unavailable for about down-after"
                    + " plus the failover when the primary fails"));
        } else {
            findings.add(Finding.ok(check, detail + ": the Sentinels may fail over before a holder's lease runs out; a"
                    + " holder whose renewal reaches the promoted replica in time keeps its lock"
                    + (waitReplicas == 0 ? " (only if that replica still has it)" : " (the replica acknowledged it)")
                    + ", the others lose it at their lease deadline"));
        }
        return findings;
    }

    /** {@code min-replicas-to-write}/{@code min-replicas-max-lag} on the primary: its own guard against a partition. */
    private static Finding minReplicas(HostAndPort primary, DefaultJedisClientConfig config, int waitReplicas) {
        String check = "redis " + primary + " min-replicas-to-write";
        try (Jedis jedis = new Jedis(primary, config)) {
            Map<String, String> settings = jedis.configGet("min-replicas-to-write", "min-replicas-max-lag");
            int toWrite = Integer.parseInt(settings.getOrDefault("min-replicas-to-write", "0"));
            String maxLag = settings.getOrDefault("min-replicas-max-lag", "10");
            int connected = Integer.parseInt(parseInfo(jedis.info("replication")).getOrDefault("connected_slaves", "0"));
            if (toWrite == 0) {
                String detail = "0 (off): a primary cut off from its replicas keeps accepting writes until the Sentinels"
                        + " demote it, which happens only after the partition heals (about 10 s later in our tests)";
                return waitReplicas == 0
                        ? Finding.warn(check, detail + "; with waitReplicas=0 lock writes there count",
                        "CONFIG SET min-replicas-to-write 1 and min-replicas-max-lag 10 (and in redis.conf of every node)")
                        : Finding.ok(check, detail + "; with waitReplicas=" + waitReplicas + " those writes are never"
                        + " acknowledged, so no lock is granted or renewed there");
            }
            String detail = toWrite + " with lag " + maxLag + " s: the primary refuses writes once fewer than " + toWrite
                    + " replica(s) acknowledged within " + maxLag + " s, which bounds a cut-off primary's writable window";
            if (toWrite > connected) {
                return Finding.fail(check, detail + "; only " + connected + " replica(s) connected: every write is refused now",
                        "bring replicas back or lower min-replicas-to-write");
            }
            if (toWrite == connected) {
                return Finding.warn(check, detail + "; " + connected + " replica(s) connected: losing one stops every write",
                        "run more replicas than min-replicas-to-write");
            }
            return Finding.ok(check, detail + "; " + connected + " replica(s) connected");
        } catch (JedisDataException e) {
            return Finding.warn(check, "CONFIG GET refused (" + e.getMessage() + "); cannot tell",
                    "check min-replicas-to-write and min-replicas-max-lag on the primary");
        } catch (JedisConnectionException e) {
            throw new LockStoreException("cannot reach redis at " + primary + ": " + rootMessage(e), e);
        }
    }

    static List<Finding> examineNode(HostAndPort node, DefaultJedisClientConfig config, int waitReplicas) {
        String prefix = "redis " + node + " ";
        try (Jedis jedis = new Jedis(node, config)) {
            List<Finding> findings = new ArrayList<>();
            findings.add(roundTrip(jedis, prefix));
            findings.add(replication(jedis, prefix, waitReplicas));
            findings.add(eviction(jedis, prefix));
            findings.add(persistence(jedis, prefix));
            findings.add(slowLog(jedis, prefix));
            findings.add(clock(jedis, prefix));
            return findings;
        } catch (JedisConnectionException e) {
            throw new LockStoreException("cannot reach redis at " + node + ": " + rootMessage(e), e);
        }
    }

    private static Finding roundTrip(Jedis jedis, String prefix) {
        long[] samples = new long[5];
        for (int i = 0; i < samples.length; i++) {
            long start = System.nanoTime();
            jedis.ping();
            samples[i] = System.nanoTime() - start;
        }
        Arrays.sort(samples);
        long median = samples[samples.length / 2];
        String detail = "PING median " + Millis.of(median) + " over " + samples.length;
        if (median > 50_000_000L) {
            return Finding.warn(prefix + "round trip", detail, "slow network or busy server: every acquire, renewal and "
                    + "release pays this; keep leases far above it");
        }
        return Finding.ok(prefix + "round trip", detail);
    }

    private static Finding replication(Jedis jedis, String prefix, int waitReplicas) {
        String check = prefix + "replication";
        Map<String, String> info;
        try {
            info = parseInfo(jedis.info("replication"));
        } catch (JedisDataException e) {
            return Finding.warn(check, "INFO refused (" + e.getMessage() + "); cannot tell whether this node is a"
                    + " primary", "allow INFO to the user doctor runs as, or run doctor as an operator's user");
        }
        String role = info.getOrDefault("role", "?");
        if (role.equals("slave")) {
            return Finding.fail(check, "this node is a replica of " + info.get("master_host") + ":"
                    + info.get("master_port") + "; lock scripts write, and replicas refuse writes",
                    "point the URI at the master, or use redis-sentinel:// to follow failovers");
        }
        int replicas = Integer.parseInt(info.getOrDefault("connected_slaves", "0"));
        if (replicas == 0) {
            return Finding.ok(check, "master, no replicas (a crash of this node loses the locks it holds: see persistence)");
        }
        long masterOffset = Long.parseLong(info.getOrDefault("master_repl_offset", "0"));
        List<String> lags = new ArrayList<>();
        long worstBytes = 0;
        long worstSeconds = 0;
        for (int i = 0; i < replicas; i++) {
            Map<String, String> replica = parseFields(info.getOrDefault("slave" + i, ""));
            long offset = Long.parseLong(replica.getOrDefault("offset", "0"));
            long lag = Long.parseLong(replica.getOrDefault("lag", "0"));
            worstBytes = Math.max(worstBytes, masterOffset - offset);
            worstSeconds = Math.max(worstSeconds, lag);
            lags.add(replica.getOrDefault("ip", "?") + ":" + replica.getOrDefault("port", "?") + " "
                    + replica.getOrDefault("state", "?") + ", " + (masterOffset - offset) + " bytes, lag " + lag + " s");
        }
        String detail = "master with " + replicas + " replica(s): " + String.join("; ", lags);
        if (worstSeconds > 1 || worstBytes > 1_000_000) {
            return Finding.warn(check, detail, "replicas are behind: a failover now would forget recent locks; "
                    + "check the network and the replicas' load");
        }
        if (waitReplicas > 0) {
            return Finding.ok(check, detail + "; acquire and renew wait for " + waitReplicas + " replica(s) (WAIT)");
        }
        return Finding.warn(check, detail + "; replication is asynchronous, a failover can forget a granted lock",
                "keep fencing tokens at the resource; waitReplicas=N in the URI (WAIT) narrows the window");
    }

    private static Finding eviction(Jedis jedis, String prefix) {
        String check = prefix + "maxmemory-policy";
        Map<String, String> config;
        try {
            config = jedis.configGet("maxmemory", "maxmemory-policy");
        } catch (JedisDataException e) {
            return Finding.warn(check, "CONFIG GET refused (" + e.getMessage() + "); cannot tell", "check maxmemory-policy "
                    + "on the server: it must not be allkeys-*");
        }
        String policy = config.getOrDefault("maxmemory-policy", "?");
        long maxmemory = Long.parseLong(config.getOrDefault("maxmemory", "0"));
        String detail = policy + ", maxmemory " + (maxmemory == 0 ? "unlimited" : maxmemory + " bytes");
        if (policy.startsWith("allkeys-")) {
            return (maxmemory == 0 ? Finding.warn(check, detail + ": no eviction yet, but once maxmemory is set any key can "
                    + "be evicted, lock keys and fencing counters included", "CONFIG SET maxmemory-policy noeviction")
                    : Finding.fail(check, detail + ": under memory pressure Redis evicts any key, lock keys and fencing "
                    + "counters included: two holders, repeated tokens", "CONFIG SET maxmemory-policy noeviction "
                    + "(and in redis.conf), or keep locks on a Redis of their own"));
        }
        if (policy.startsWith("volatile-") && maxmemory > 0) {
            return Finding.warn(check, detail + ": lock keys have a TTL, so they can be evicted under memory pressure",
                    "use noeviction, or keep locks on a Redis of their own with room to spare");
        }
        return Finding.ok(check, detail);
    }

    private static Finding persistence(Jedis jedis, String prefix) {
        String check = prefix + "persistence";
        Map<String, String> config;
        try {
            config = jedis.configGet("appendonly", "appendfsync", "save");
        } catch (JedisDataException e) {
            return Finding.warn(check, "CONFIG GET refused; cannot tell", "check appendonly/appendfsync on the server");
        }
        boolean aof = "yes".equals(config.get("appendonly"));
        String fsync = config.getOrDefault("appendfsync", "?");
        String save = config.getOrDefault("save", "");
        if (aof && fsync.equals("always")) {
            return Finding.ok(check, "AOF, appendfsync always");
        }
        if (aof) {
            return Finding.ok(check, "AOF, appendfsync " + fsync + ": a crash may forget the locks of the last second "
                    + "(restart the node no sooner than the longest lease to be safe)");
        }
        String detail = save.isBlank() ? "no AOF, no RDB snapshots: a restart forgets every lock and fencing counter"
                : "no AOF, RDB snapshots (save " + save + "): a restart forgets locks and fencing counters since the last snapshot";
        return Finding.warn(check, detail, "appendonly yes with appendfsync everysec (or always), or delay a restarted "
                + "node by the longest lease time before clients use it");
    }

    private static Finding slowLog(Jedis jedis, String prefix) {
        String check = prefix + "slowlog";
        List<Slowlog> entries;
        try {
            entries = jedis.slowlogGet(128);
        } catch (JedisDataException e) {
            return Finding.warn(check, "SLOWLOG refused (" + e.getMessage() + ")", "allow SLOWLOG GET for diagnosis");
        }
        int lockEntries = 0;
        long slowestMicros = 0;
        for (Slowlog entry : entries) {
            if (!entry.getArgs().isEmpty() && LOCK_COMMANDS.contains(entry.getArgs().get(0).toUpperCase(Locale.ROOT))) {
                lockEntries++;
                slowestMicros = Math.max(slowestMicros, entry.getExecutionTime());
            }
        }
        if (lockEntries == 0) {
            return Finding.ok(check, entries.size() + " slow entries, none from lock scripts or lock commands");
        }
        return Finding.warn(check, lockEntries + " of " + entries.size() + " slow entries are lock scripts/commands, "
                        + "slowest " + Millis.of(slowestMicros * 1000),
                "a slow script blocks every client: look for big keys or a busy server (SLOWLOG GET)");
    }

    private static Finding clock(Jedis jedis, String prefix) {
        String check = prefix + "clock";
        long before = System.currentTimeMillis();
        List<String> time = jedis.time();
        long after = System.currentTimeMillis();
        long serverMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        long skew = serverMillis - (before + after) / 2;
        String detail = "server clock " + (skew >= 0 ? "+" : "") + skew + " ms from this machine's";
        if (Math.abs(skew) > 1000) {
            return Finding.warn(check, detail + "; leases run on the server's clock, but a clock that jumps expires locks "
                    + "early and logs disagree", "run NTP (chrony) on the server and the clients; never step the clock");
        }
        return Finding.ok(check, detail + " (leases run on the server's clock)");
    }

    static Map<String, String> parseInfo(String info) {
        Map<String, String> result = new LinkedHashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                result.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return result;
    }

    private static Map<String, String> parseFields(String fields) {
        Map<String, String> result = new LinkedHashMap<>();
        for (String field : fields.split(",")) {
            int equals = field.indexOf('=');
            if (equals > 0) {
                result.put(field.substring(0, equals), field.substring(equals + 1));
            }
        }
        return result;
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.toString() : root.getMessage();
    }
}
