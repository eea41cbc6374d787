package io.locksmith.bench;

import redis.clients.jedis.HostAndPort;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Who runs in which scenario on which store, and which of them is the baseline the ratios divide by: the
 * minimal raw protocol where there is one (Jedis {@code SET NX PX}), the spin-retry lock for contention on
 * Redis, otherwise the store's usual client (Curator, jetcd), and Redisson's watchdog for renewal on Redis.
 * Locksmith runs on Redis over each of its three transports (Jedis, Redisson, Lettuce) side by side.
 */
final class Subjects {

    /** Redis, jetcd and Locksmith all default to a 30 s lease; the renewal scenario sets its own. */
    static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    static final Duration SPIN_INTERVAL = Duration.ofMillis(20);
    /** Curator's session timeout, equal to Locksmith's ZooKeeper default so both heartbeat alike. */
    static final Duration ZOOKEEPER_SESSION = Duration.ofSeconds(15);

    /**
     * A subject in a scenario; {@code baseline} marks the one the ratios of its table divide by, and
     * {@code comparedTo}, if not null, names another row this subject's ratios divide by instead.
     */
    record Entry(Subject subject, boolean baseline, String comparedTo) {
        Entry(Subject subject, boolean baseline) {
            this(subject, baseline, null);
        }
    }

    static final String REDISSON_MINIMAL = "Redisson SET NX PX + Lua delete (minimal over Redisson)";

    private final BenchServers servers;
    private final BenchConfig config;

    Subjects(BenchServers servers, BenchConfig config) {
        this.servers = servers;
        this.config = config;
    }

    List<Entry> of(Store store, Scenario scenario) {
        Duration lease = scenario == Scenario.RENEWAL ? config.renewalLease() : DEFAULT_LEASE;
        List<Entry> entries = new ArrayList<>();
        if (scenario == Scenario.HOT_LOCK) {
            hotLock(store, lease, entries);
            return entries;
        }
        if (scenario == Scenario.ASYNC_OVERHEAD) {
            asyncOverhead(store, lease, entries);
            return entries;
        }
        if (scenario == Scenario.RW_READ_HEAVY || scenario == Scenario.SEMAPHORE) {
            primitives(store, scenario, lease, entries);
            return entries;
        }
        if (scenario == Scenario.LEADER_FAILOVER) {
            leaderFailover(store, entries);
            return entries;
        }
        switch (store) {
            case REDIS -> redis(scenario, lease, entries);
            case SENTINEL -> sentinel(scenario, lease, entries);
            case ZOOKEEPER -> zookeeper(lease, entries);
            case ETCD -> etcd(scenario, lease, entries);
            case POSTGRES -> {
                // The row lock renews nothing, so it is no baseline for renewal; the other three scenarios compare.
                if (scenario != Scenario.RENEWAL) {
                    postgres(lease, entries);
                    postgresPeers(lease, entries);
                }
            }
            case MEM -> entries.add(new Entry(new LocksmithSubject("Locksmith over mem://", Store.MEM,
                    "mem://bench?lease=" + lease.toMillis() + "ms"), false));
        }
        return entries;
    }

    /**
     * Locksmith on Sentinel with and without waiting for a replica; the baseline is {@code waitReplicas=0}, so the
     * ratios are what the default's {@code WAIT} costs. Renewal is not measured here.
     */
    private void sentinel(Scenario scenario, Duration lease, List<Entry> entries) {
        if (scenario == Scenario.RENEWAL) {
            return;
        }
        String uri = "redis-sentinel://127.0.0.1:" + servers.port(Store.SENTINEL) + "/" + BenchServers.SENTINEL_MASTER
                + "?lease=" + lease.toMillis() + "ms";
        entries.add(new Entry(new LocksmithSubject("Locksmith, waitReplicas=0 (fenced only)", Store.SENTINEL,
                threads -> uri + "&waitReplicas=0&poolSize=" + Math.max(8, threads)), true));
        entries.add(new Entry(new LocksmithSubject("Locksmith, default (WAIT 1 replica)", Store.SENTINEL,
                threads -> uri + "&poolSize=" + Math.max(8, threads)), false));
    }

    private void redis(Scenario scenario, Duration lease, List<Entry> entries) {
        int port = servers.clientPort(Store.REDIS, scenario);
        HostAndPort address = new HostAndPort("127.0.0.1", port);
        String redissonAddress = "redis://127.0.0.1:" + port;
        String leaseParam = "lease=" + lease.toMillis() + "ms";
        switch (scenario) {
            case UNCONTENDED -> entries.add(new Entry(new JedisSetNxSubject("Jedis SET NX PX + Lua delete (minimal)",
                    address, lease, SPIN_INTERVAL), true));
            case CONTENDED -> entries.add(new Entry(new JedisSetNxSubject("Jedis SET NX PX, spin-retry every 20 ms",
                    address, lease, SPIN_INTERVAL), true));
            case MANY_NAMES -> entries.add(new Entry(new JedisSetNxSubject("Jedis SET NX PX (20 ms retry when taken)",
                    address, lease, SPIN_INTERVAL), true));
            default -> {
            }
        }
        entries.add(new Entry(new RedissonSubject(scenario == Scenario.RENEWAL ? "Redisson RLock (watchdog)"
                : "Redisson RLock", redissonAddress, RedissonSubject.Kind.LOCK, lease), scenario == Scenario.RENEWAL));
        if (scenario == Scenario.UNCONTENDED || scenario == Scenario.CONTENDED) {
            entries.add(new Entry(new RedissonSubject("Redisson RFencedLock", redissonAddress,
                    RedissonSubject.Kind.FENCED_LOCK, lease), false));
        }
        entries.add(new Entry(new LocksmithSubject("Locksmith over Jedis", Store.REDIS,
                threads -> "redis://127.0.0.1:" + port + "?client=jedis&poolSize=" + jedisPoolSize(threads) + "&"
                        + leaseParam), false));
        boolean sameTransportBaseline = scenario == Scenario.UNCONTENDED || scenario == Scenario.MANY_NAMES;
        if (sameTransportBaseline) {
            entries.add(new Entry(new RedissonSetNxSubject(REDISSON_MINIMAL, redissonAddress, lease, SPIN_INTERVAL),
                    false));
        }
        entries.add(new Entry(new LocksmithSubject("Locksmith over Redisson", Store.REDIS,
                "redis://127.0.0.1:" + port + "?client=redisson&" + leaseParam), false,
                sameTransportBaseline ? REDISSON_MINIMAL : null));
        // One multiplexed connection whatever the thread count: no pool to size.
        entries.add(new Entry(new LocksmithSubject("Locksmith over Lettuce", Store.REDIS,
                "redis://127.0.0.1:" + port + "?client=lettuce&" + leaseParam), false));
    }

    /**
     * Locksmith over Jedis sized like the raw client: a connection for each calling thread (the raw client's pool has
     * as many, at least 8), and one more, which the provider keeps for the renewal batch (its calls in flight are the
     * pool less one). With one connection fewer than threads, the callers queue for turns on every call: 32 threads
     * on a pool of 32 ran many names at 0.26-0.41 of the raw client's throughput, on 33 at 0.74-1.04 (3 December).
     */
    static int jedisPoolSize(int threads) {
        return Math.max(8, threads + 1);
    }

    private void zookeeper(Duration lease, List<Entry> entries) {
        String connect = "127.0.0.1:" + servers.port(Store.ZOOKEEPER);
        entries.add(new Entry(new CuratorSubject("Curator InterProcessMutex", connect, ZOOKEEPER_SESSION), true));
        entries.add(new Entry(new LocksmithSubject("Locksmith over Curator", Store.ZOOKEEPER,
                "zookeeper://" + connect + "/bench-locksmith?sessionTimeout=" + ZOOKEEPER_SESSION.toSeconds() + "s&lease="
                        + lease.toMillis() + "ms"), false));
    }

    private void etcd(Scenario scenario, Duration lease, List<Entry> entries) {
        String endpoint = "http://127.0.0.1:" + servers.port(Store.ETCD);
        if (scenario == Scenario.RENEWAL) {
            entries.add(new Entry(new JetcdSubject("jetcd Lock, a lease per lock", endpoint,
                    JetcdSubject.LeaseMode.PER_LOCK, lease), true));
        } else {
            entries.add(new Entry(new JetcdSubject("jetcd Lock, a lease per thread", endpoint,
                    JetcdSubject.LeaseMode.PER_THREAD, lease), true));
            if (scenario == Scenario.UNCONTENDED) {
                entries.add(new Entry(new JetcdSubject("jetcd Lock, a lease per lock", endpoint,
                        JetcdSubject.LeaseMode.PER_LOCK, lease), false));
            }
        }
        entries.add(new Entry(new LocksmithSubject("Locksmith over jetcd", Store.ETCD,
                "etcd://127.0.0.1:" + servers.port(Store.ETCD) + "?lease=" + lease.toSeconds() + "s"), false));
    }

    /**
     * The hot lock (issue 29): on each store the peer a team would use directly is the baseline (Redisson
     * {@code RLock}, Curator {@code InterProcessMutex}, jetcd {@code Lock} with a lease per thread, the ShedLock-style
     * row lock), beside Locksmith (on Redis over each of its three transports). Every client is opened for
     * {@link HotLock#CLIENT_THREADS} threads, so pools hold 8 connections at every waiter count. Sentinel: not measured.
     */
    private void hotLock(Store store, Duration lease, List<Entry> entries) {
        switch (store) {
            case REDIS -> {
                int port = servers.port(Store.REDIS);
                entries.add(new Entry(new RedissonSubject("Redisson RLock", "redis://127.0.0.1:" + port,
                        RedissonSubject.Kind.LOCK, lease), true));
                entries.add(new Entry(new LocksmithSubject("Locksmith over Jedis", Store.REDIS,
                        threads -> "redis://127.0.0.1:" + port + "?client=jedis&poolSize=" + Math.max(8, threads)
                                + "&lease=" + lease.toMillis() + "ms"), false));
                entries.add(new Entry(new LocksmithSubject("Locksmith over Redisson", Store.REDIS,
                        "redis://127.0.0.1:" + port + "?client=redisson&lease=" + lease.toMillis() + "ms"), false));
                entries.add(new Entry(new LocksmithSubject("Locksmith over Lettuce", Store.REDIS,
                        "redis://127.0.0.1:" + port + "?client=lettuce&lease=" + lease.toMillis() + "ms"), false));
            }
            case ZOOKEEPER -> zookeeper(lease, entries);
            case ETCD -> etcd(Scenario.HOT_LOCK, lease, entries);
            case POSTGRES -> postgres(lease, entries);
            case MEM -> entries.add(new Entry(new LocksmithSubject("Locksmith over mem://", Store.MEM,
                    "mem://bench-hot?lease=" + lease.toMillis() + "ms"), false));
            case SENTINEL -> {
            }
        }
    }

    /**
     * Locksmith's blocking API (the baseline) and its async API on the same URI: on Redis (over Jedis), ZooKeeper,
     * etcd, PostgreSQL and mem, whichever stores the run names.
     */
    private void asyncOverhead(Store store, Duration lease, List<Entry> entries) {
        String base = switch (store) {
            case REDIS -> "redis://127.0.0.1:" + servers.port(Store.REDIS) + "?client=jedis&lease=" + lease.toMillis()
                    + "ms&poolSize=";
            case ZOOKEEPER -> "zookeeper://127.0.0.1:" + servers.port(Store.ZOOKEEPER) + "/bench-locksmith?sessionTimeout="
                    + ZOOKEEPER_SESSION.toSeconds() + "s&lease=" + lease.toMillis() + "ms";
            case ETCD -> "etcd://127.0.0.1:" + servers.port(Store.ETCD) + "?lease=" + lease.toSeconds() + "s";
            case POSTGRES -> "postgres://" + io.locksmith.tck.server.StoreServers.POSTGRES_USER + "@127.0.0.1:"
                    + servers.port(Store.POSTGRES) + "/postgres?lease=" + lease.toMillis() + "ms&pool=";
            case MEM -> "mem://bench-async?lease=" + lease.toMillis() + "ms";
            case SENTINEL -> null;
        };
        if (base == null) {
            return;
        }
        boolean sized = base.endsWith("=");
        java.util.function.IntFunction<String> uri = threads -> sized ? base + Math.max(8, threads) : base;
        String blocking = "Locksmith blocking: tryAcquire(wait), close()";
        entries.add(new Entry(new LocksmithSubject(blocking, store, uri), true));
        entries.add(new Entry(new LocksmithAsyncSubject("Locksmith async: tryAcquireAsync(wait), closeAsync()", store, uri),
                false, blocking));
    }

    /**
     * Issue 32's semaphore and read-write lock: on each store the peer's own primitive is the baseline where it has one
     * (Redisson {@code RPermitExpirableSemaphore} and {@code RReadWriteLock}; Curator {@code InterProcessSemaphoreV2} and
     * {@code InterProcessReadWriteLock}), beside Locksmith's (on Redis over Jedis). etcd has neither: Locksmith's
     * semaphore runs alone there, and the read-write lock is not run. PostgreSQL and Sentinel: not measured.
     */
    private void primitives(Store store, Scenario scenario, Duration lease, List<Entry> entries) {
        switch (store) {
            case REDIS -> {
                int port = servers.port(Store.REDIS);
                if (scenario == Scenario.SEMAPHORE) {
                    entries.add(new Entry(new RedissonPrimitives("Redisson RPermitExpirableSemaphore (30 s permit lease)",
                            "redis://127.0.0.1:" + port, lease), true));
                } else {
                    entries.add(new Entry(new RedissonPrimitives("Redisson RReadWriteLock", "redis://127.0.0.1:" + port,
                            lease), true));
                }
                entries.add(new Entry(new LocksmithPrimitives("Locksmith over Jedis", Store.REDIS,
                        "redis://127.0.0.1:" + port + "?client=jedis&lease=" + lease.toMillis() + "ms"), false));
            }
            case ZOOKEEPER -> {
                String connect = "127.0.0.1:" + servers.port(Store.ZOOKEEPER);
                String peer = scenario == Scenario.SEMAPHORE ? "Curator InterProcessSemaphoreV2"
                        : "Curator InterProcessReadWriteLock";
                entries.add(new Entry(new CuratorPrimitives(peer, connect, ZOOKEEPER_SESSION), true));
                entries.add(new Entry(new LocksmithPrimitives("Locksmith over Curator", Store.ZOOKEEPER,
                        "zookeeper://" + connect + "/bench-locksmith?sessionTimeout=" + ZOOKEEPER_SESSION.toSeconds()
                                + "s&lease=" + lease.toMillis() + "ms"), false));
            }
            case ETCD -> {
                if (scenario == Scenario.RW_READ_HEAVY) {
                    return;
                }
                entries.add(new Entry(new LocksmithPrimitives("Locksmith over jetcd", Store.ETCD,
                        "etcd://127.0.0.1:" + servers.port(Store.ETCD) + "?lease=" + lease.toSeconds() + "s"), false));
            }
            case MEM -> entries.add(new Entry(new LocksmithPrimitives("Locksmith over mem://", Store.MEM,
                    "mem://bench-primitives?lease=" + lease.toMillis() + "ms"), false));
            case POSTGRES, SENTINEL -> {
            }
        }
    }

    /**
     * The term's lease in the failover scenario, for every client: Locksmith's lease, Curator's session (the bench's
     * ZooKeeper server grants at least 2 × its 3 s tick), jetcd's lease TTL. Short, so that a cut-off leader's rounds
     * take seconds; a clean close does not wait for it.
     */
    static final Duration FAILOVER_LEASE = Duration.ofSeconds(6);

    /**
     * Leader failover (issue 32): Curator {@code LeaderLatch} and jetcd's {@code Election} as the baselines, beside
     * Locksmith's election (on Redis, which Redisson has none for, alone). Every client reaches the store through a
     * proxy of its own, so that the leader's can be cut off; every term lives {@link #FAILOVER_LEASE}.
     */
    private void leaderFailover(Store store, List<Entry> entries) {
        String lease = "lease=" + FAILOVER_LEASE.toMillis() + "ms";
        switch (store) {
            case REDIS -> entries.add(new Entry(new LocksmithPrimitives("Locksmith over Jedis", Store.REDIS,
                    servers.port(Store.REDIS), port -> "redis://127.0.0.1:" + port + "?client=jedis&" + lease), false));
            case ZOOKEEPER -> {
                int port = servers.port(Store.ZOOKEEPER);
                entries.add(new Entry(new CuratorPrimitives("Curator LeaderLatch", port, FAILOVER_LEASE), true));
                entries.add(new Entry(new LocksmithPrimitives("Locksmith over Curator", Store.ZOOKEEPER, port,
                        proxy -> "zookeeper://127.0.0.1:" + proxy + "/bench-locksmith?sessionTimeout="
                                + FAILOVER_LEASE.toSeconds() + "s&" + lease), false));
            }
            case ETCD -> {
                int port = servers.port(Store.ETCD);
                entries.add(new Entry(new JetcdElectionSubject("jetcd Election (campaign; close revokes the lease)", port,
                        FAILOVER_LEASE), true));
                entries.add(new Entry(new LocksmithPrimitives("Locksmith over jetcd", Store.ETCD, port,
                        proxy -> "etcd://127.0.0.1:" + proxy + "?lease=" + FAILOVER_LEASE.toSeconds() + "s"), false));
            }
            case MEM -> entries.add(new Entry(new LocksmithPrimitives("Locksmith over mem://", Store.MEM,
                    "mem://bench-failover?" + lease), false));
            case POSTGRES, SENTINEL -> {
            }
        }
    }

    /**
     * Beside the baseline (issue 35): Spring Integration's {@code JdbcLockRegistry}, what Spring teams on PostgreSQL
     * use, and PostgreSQL's own {@code pg_advisory_lock}, the floor (a server-side queue, no TTL or token). Not in the
     * hot-lock scenario: the advisory lock keeps a pooled connection per waiter.
     */
    private void postgresPeers(Duration lease, List<Entry> entries) {
        int port = servers.port(Store.POSTGRES);
        String user = io.locksmith.tck.server.StoreServers.POSTGRES_USER;
        String jdbc = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        entries.add(new Entry(new SpringJdbcLockRegistrySubject("Spring Integration JdbcLockRegistry (polls every 100 ms)",
                jdbc, user, lease), false));
        entries.add(new Entry(new AdvisoryLockSubject("pg_advisory_lock (session lock, server queue)", jdbc, user),
                false));
    }

    /** The ShedLock-style row lock is the baseline: what teams on PostgreSQL run today. */
    private void postgres(Duration lease, List<Entry> entries) {
        int port = servers.port(Store.POSTGRES);
        String user = io.locksmith.tck.server.StoreServers.POSTGRES_USER;
        entries.add(new Entry(new ShedLockJdbcSubject("ShedLock-style JDBC row lock (UPDATE ... WHERE lock_until <= now()),"
                + " retry every 20 ms", "jdbc:postgresql://127.0.0.1:" + port + "/postgres", user, lease, SPIN_INTERVAL),
                true));
        // Sized like the baseline's pool: at least 8 connections, as many as threads beyond that.
        entries.add(new Entry(new LocksmithSubject("Locksmith over PostgreSQL", Store.POSTGRES,
                threads -> "postgres://" + user + "@127.0.0.1:" + port + "/postgres?pool=" + Math.max(8, threads)
                        + "&lease=" + lease.toMillis() + "ms"), false));
    }
}
