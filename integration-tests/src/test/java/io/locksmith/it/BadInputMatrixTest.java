package io.locksmith.it;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.tck.server.FreePorts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The bad-input matrix (issue 14, items 1, 2 and 11, and "also build"), per store against a live server (Redis,
 * ZooKeeper, etcd, PostgreSQL): durations (0, negative, 1 ns, 1 ms, the maximum, beyond it) through the API and the
 * URI, names, waits, URIs, dead ports. Each case records the error type and message, the time taken against its
 * bound, and the store's lock keys afterwards, which must be those from before (nothing left behind); the whole
 * table is printed after the run. The server killed and frozen under a held lease is {@link DeadStoreBoundsTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BadInputMatrixTest {

    /** A refusal of bad input makes no store call: it is local, whatever the store. */
    private static final Duration LOCAL = Duration.ofSeconds(1);
    /** Opening a client on a dead port: the URIs' 1 s time-outs plus what a loaded machine adds. */
    private static final Duration DEAD_PORT = Duration.ofMillis(2_500);

    /** One case of the matrix, as it came out. */
    record Outcome(StoreUnderTest.Kind store, String input, String thrown, String message, long millis,
                   long boundMillis, String keysLeft) {
    }

    private final Map<StoreUnderTest.Kind, StoreUnderTest> stores = new EnumMap<>(StoreUnderTest.Kind.class);
    private final List<Outcome> outcomes = Collections.synchronizedList(new ArrayList<>());

    @BeforeAll
    void startStores() {
        for (StoreUnderTest.Kind kind : StoreUnderTest.Kind.values()) {
            stores.put(kind, StoreUnderTest.start(kind));
        }
    }

    @AfterAll
    void stopStoresAndPrintTheMatrix() {
        stores.values().forEach(StoreUnderTest::close);
        System.out.println("bad-input matrix: store | input | thrown | ms (bound) | keys left | message");
        synchronized (outcomes) {
            for (Outcome outcome : outcomes) {
                System.out.printf("bad-input matrix: %-9s | %-40s | %-27s | %5d (%5d) | %-4s | %s%n", outcome.store(),
                        outcome.input(), outcome.thrown(), outcome.millis(), outcome.boundMillis(), outcome.keysLeft(),
                        outcome.message());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(StoreUnderTest.Kind.class)
    void leaseTimesOutsideTheLimitsAreRefusedBeforeAnyStoreCall(StoreUnderTest.Kind kind) {
        StoreUnderTest store = stores.get(kind);
        try (LockClient client = LockClient.open(store.uri())) {
            String name = "edge-" + UUID.randomUUID();
            refused(store, "leaseTime(0)", IllegalArgumentException.class, "must be positive", LOCAL,
                    () -> LockOptions.builder().leaseTime(Duration.ZERO));
            refused(store, "leaseTime(-1s)", IllegalArgumentException.class, "must be positive", LOCAL,
                    () -> LockOptions.builder().leaseTime(Duration.ofSeconds(-1)));
            // Beyond the maximum, refused naming it (it used to write a 2,700-year TTL, then overflow).
            refused(store, "leaseTime(1,000,000 days)", IllegalArgumentException.class, "at most PT24H", LOCAL,
                    () -> LockOptions.builder().leaseTime(Duration.ofDays(1_000_000)));
            refused(store, "leaseTime(max + 1 ns)", IllegalArgumentException.class, "at most PT24H", LOCAL,
                    () -> LockOptions.builder().leaseTime(LockOptions.MAX_LEASE_TIME.plusNanos(1)));
            refused(store, "maxHold(31 days)", IllegalArgumentException.class, "at most PT720H", LOCAL,
                    () -> LockOptions.builder().maxHold(Duration.ofDays(31)));
            // 1 ns and 1 ms: under every store's minimum, refused when the lock is made, before any store call.
            for (Duration tiny : new Duration[]{Duration.ofNanos(1), Duration.ofMillis(1)}) {
                LockOptions options = LockOptions.builder().leaseTime(tiny).build();
                refused(store, "lock(name, leaseTime(" + tiny + "))", IllegalArgumentException.class,
                        kind == StoreUnderTest.Kind.ETCD ? "whole seconds" : "minimum", LOCAL,
                        () -> client.lock(name, options));
            }
            // The maximum itself works, and the lock carries a bounded TTL: the store frees it in at most a day.
            LockOptions longest = LockOptions.builder().leaseTime(LockOptions.MAX_LEASE_TIME)
                    .maxHold(LockOptions.MAX_LEASE_TIME).fixedLease().build();
            works(store, "acquire with leaseTime(max)", () -> {
                try (Lease lease = client.lock(name, longest).acquire(Duration.ofSeconds(5))) {
                    assertTrue(lease.isHeld());
                    // Stores with a TTL show it (etcd showed "session" before: item 11); ZooKeeper's lock lives as
                    // long as the session, which has no TTL to show.
                    java.util.Optional<Duration> ttl = client.inspect(name).flatMap(info -> info.timeToLive());
                    assertEquals(kind != StoreUnderTest.Kind.ZOOKEEPER, ttl.isPresent(), kind + ": TTL " + ttl);
                    ttl.ifPresent(left -> assertTrue(left.compareTo(LockOptions.MAX_LEASE_TIME) <= 0
                            && left.compareTo(LockOptions.MAX_LEASE_TIME.minusMinutes(1)) > 0,
                            kind + ": TTL " + left + " of a lease of " + LockOptions.MAX_LEASE_TIME));
                }
            });
        }
    }

    @ParameterizedTest
    @EnumSource(StoreUnderTest.Kind.class)
    void badLeaseParametersInTheUriAreConfigurationErrors(StoreUnderTest.Kind kind) {
        StoreUnderTest store = stores.get(kind);
        refused(store, "?lease=1000000d", LockConfigurationException.class, "at most PT24H", LOCAL,
                () -> LockClient.open(store.uri("lease=1000000d")));
        refused(store, "?lease=1ms", LockConfigurationException.class,
                kind == StoreUnderTest.Kind.ETCD ? "whole seconds" : "minimum", DEAD_PORT,
                () -> LockClient.open(store.uri("lease=1ms")));
        refused(store, "?lease=0s", LockConfigurationException.class, "not a positive duration", LOCAL,
                () -> LockClient.open(store.uri("lease=0s")));
        refused(store, "?lease=-5s", LockConfigurationException.class, "lease", LOCAL,
                () -> LockClient.open(store.uri("lease=-5s")));
        refused(store, "?lease=soon", LockConfigurationException.class, "soon", LOCAL,
                () -> LockClient.open(store.uri("lease=soon")));
        refused(store, "?maxHold=100d", LockConfigurationException.class, "at most PT720H", LOCAL,
                () -> LockClient.open(store.uri("maxHold=100d")));
        // Malformed URIs: named before any connection attempt.
        String scheme = switch (kind) {
            case REDIS -> "redis";
            case ZOOKEEPER -> "zookeeper";
            case ETCD -> "etcd";
            case POSTGRES -> "postgres";
        };
        refused(store, "port 70000", LockConfigurationException.class, "invalid port '70000'", LOCAL,
                () -> LockClient.open(scheme + "://127.0.0.1:70000" + (kind == StoreUnderTest.Kind.POSTGRES
                        || kind == StoreUnderTest.Kind.ZOOKEEPER ? "/locksmith" : "")));
        refused(store, "port 'abc'", LockConfigurationException.class, "invalid port 'abc'", LOCAL,
                () -> LockClient.open(scheme + "://127.0.0.1:abc"));
    }

    @ParameterizedTest
    @EnumSource(StoreUnderTest.Kind.class)
    void badNamesAndWaitsAreRefusedAndOddNamesLeaveNothingBehind(StoreUnderTest.Kind kind) {
        StoreUnderTest store = stores.get(kind);
        try (LockClient client = LockClient.open(store.uri())) {
            refused(store, "lock(null)", NullPointerException.class, "name", LOCAL, () -> client.lock(null));
            refused(store, "lock(\"\")", IllegalArgumentException.class, "empty", LOCAL, () -> client.lock(""));
            refused(store, "lock(\"   \")", IllegalArgumentException.class, "blank", LOCAL, () -> client.lock("   "));
            refused(store, "lock(513 characters)", IllegalArgumentException.class, "512", LOCAL,
                    () -> client.lock("x".repeat(513)));
            refused(store, "lock(name with a newline)", IllegalArgumentException.class, "control character", LOCAL,
                    () -> client.lock("edge\nname"));
            refused(store, "acquire(-1 ms)", IllegalArgumentException.class, "negative", LOCAL,
                    () -> client.lock("edge-" + UUID.randomUUID()).acquire(Duration.ofMillis(-1)));
            refused(store, "inspect(\"\")", IllegalArgumentException.class, "empty", LOCAL, () -> client.inspect(""));
            String unique = UUID.randomUUID().toString();
            // Valid names that a store could mangle (paths, wildcards, non-ASCII, the longest): each is taken and
            // released, and nothing of it stays.
            for (String odd : List.of("edge/" + unique + "/../x", "edge*" + unique + "?[a]", "édge-日本-" + unique,
                    "edge " + unique + " ", ("edge-" + unique).repeat(20).substring(0, 512))) {
                works(store, "acquire+release of '" + abbreviate(odd) + "'", () -> {
                    try (Lease lease = client.lock(odd).acquire(Duration.ofSeconds(5))) {
                        assertEquals(odd, lease.lockName());
                    }
                });
            }
            // A zero wait is one attempt; a huge wait is a wait without practical end, not an overflow.
            String name = "edge-" + UUID.randomUUID();
            works(store, "acquire(0)", () -> client.lock(name).acquire(Duration.ZERO).close());
            works(store, "acquire(Long.MAX_VALUE s)",
                    () -> client.lock(name).acquire(Duration.ofSeconds(Long.MAX_VALUE)).close());
        }
    }

    @ParameterizedTest
    @EnumSource(StoreUnderTest.Kind.class)
    void anUnknownParameterIsNamedEvenWhenTheStoreIsDown(StoreUnderTest.Kind kind) {
        StoreUnderTest store = stores.get(kind);
        refused(store, "?leese=30s (store up)", LockConfigurationException.class, "unknown parameter [leese]", DEAD_PORT,
                () -> LockClient.open(store.uri("leese=30s")));
        // With the stores' default connect time-outs (5 to 10 s): the typo is named before any connection attempt.
        int deadPort = FreePorts.next();
        String uri = switch (kind) {
            case REDIS -> "redis://127.0.0.1:" + deadPort + "?leese=30s";
            case ETCD -> "etcd://127.0.0.1:" + deadPort + "?leese=30s";
            case ZOOKEEPER -> "zookeeper://127.0.0.1:" + deadPort + "/locksmith?leese=30s";
            case POSTGRES -> "postgres://locksmith@127.0.0.1:" + deadPort + "/postgres?leese=30s";
        };
        refused(store, "?leese=30s (dead port)", LockConfigurationException.class, "unknown parameter [leese]",
                LOCAL, () -> LockClient.open(uri));
    }

    /** redisson:// wraps the caller's RedissonClient: with locksmith-redis on the class path, say how (item 11). */
    @org.junit.jupiter.api.Test
    void theRedissonSchemeSaysWhatItNeedsInsteadOfAMissingJar() {
        StoreUnderTest redis = stores.get(StoreUnderTest.Kind.REDIS);
        Throwable thrown = refused(redis, "redisson://host (no factory)", LockConfigurationException.class,
                "RedissonLocks.factory", LOCAL, () -> LockClient.open("redisson://127.0.0.1:" + redis.server.port()));
        assertTrue(!thrown.getMessage().contains("add it to the class path"), thrown.getMessage());
    }

    @ParameterizedTest
    @EnumSource(StoreUnderTest.Kind.class)
    void aDeadPortIsAStoreErrorWithinTheCommandTimeOut(StoreUnderTest.Kind kind) {
        StoreUnderTest store = stores.get(kind);
        // Warm the store client's classes first: a cold start is not the bound under test.
        LockClient.open(store.uri()).close();
        int deadPort = FreePorts.next();
        Throwable thrown = refused(store, "open on a dead port", LockStoreException.class, Integer.toString(deadPort),
                DEAD_PORT, () -> LockClient.open(deadPortUri(kind, deadPort)));
        assertTrue(!thrown.getMessage().contains("last error: null"), thrown.getMessage());
    }

    private static String deadPortUri(StoreUnderTest.Kind kind, int deadPort) {
        return switch (kind) {
            case REDIS -> "redis://127.0.0.1:" + deadPort + "?timeout=1s";
            case ETCD -> "etcd://127.0.0.1:" + deadPort + "?timeout=1s";
            case ZOOKEEPER -> "zookeeper://127.0.0.1:" + deadPort + "/locksmith?connectionTimeout=1s";
            case POSTGRES -> "postgres://locksmith@127.0.0.1:" + deadPort + "/postgres?timeout=1s&connectTimeout=1s";
        };
    }

    /**
     * Runs {@code call}, which must throw {@code type} naming {@code mentions} within {@code bound}, and leave the
     * store's lock keys as they were. Records the outcome.
     */
    private Throwable refused(StoreUnderTest store, String input, Class<? extends Throwable> type, String mentions,
                              Duration bound, Supplier<?> call) {
        SortedSet<String> before = store.lockKeys();
        long start = System.nanoTime();
        Throwable thrown = null;
        try {
            Object result = call.get();
            if (result instanceof AutoCloseable closeable) {
                closeable.close();
            }
        } catch (Throwable t) {
            thrown = t;
        }
        long took = millisSince(start);
        SortedSet<String> after = store.lockKeys();
        outcomes.add(new Outcome(store.kind, input, thrown == null ? "(nothing)" : thrown.getClass().getSimpleName(),
                thrown == null ? "" : String.valueOf(thrown.getMessage()), took, bound.toMillis(),
                after.equals(before) ? "none" : String.valueOf(after.size() - before.size())));
        String where = store.kind + ", " + input + ": ";
        if (!type.isInstance(thrown)) {
            fail(where + "expected " + type.getSimpleName() + " naming '" + mentions + "', got " + thrown, thrown);
        }
        assertTrue(thrown.getMessage() != null && thrown.getMessage().contains(mentions),
                where + "the message should mention '" + mentions + "': " + thrown.getMessage());
        assertTrue(took <= bound.toMillis(), where + "took " + took + " ms, bound " + bound.toMillis() + " ms");
        assertEquals(before, after, where + "keys left behind");
        return thrown;
    }

    /** Runs {@code call}, which must succeed and leave the store's lock keys as they were. Records the outcome. */
    private void works(StoreUnderTest store, String input, Runnable call) {
        SortedSet<String> before = store.lockKeys();
        long start = System.nanoTime();
        call.run();
        long took = millisSince(start);
        SortedSet<String> after = store.lockKeys();
        outcomes.add(new Outcome(store.kind, input, "(works)", "", took, -1,
                after.equals(before) ? "none" : String.valueOf(after.size() - before.size())));
        assertEquals(before, after, store.kind + ", " + input + ": keys left behind");
    }

    private static String abbreviate(String name) {
        return name.length() <= 24 ? name : name.substring(0, 21) + "...";
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
