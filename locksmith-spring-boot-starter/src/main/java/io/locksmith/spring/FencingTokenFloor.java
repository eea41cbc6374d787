package io.locksmith.spring;

/**
 * The highest fencing token the application's guarded resource has accepted, so that the starter can check at
 * startup that the configured store hands out higher ones. Without it, switching stores by changing only
 * {@code locksmith.uri} can make every fenced write fail: Redis tokens are about 1.8x10^15 (they never fall behind
 * the server clock in microseconds), etcd tokens are the store revision (hundreds on a young cluster), so a
 * resource that kept the last Redis token rejects every etcd holder. The safe switch is the {@code migrate:} URI
 * (docs/MIGRATION.md), whose new-store tokens are offset above any old-store token.
 * <pre>{@code
 * @Bean
 * FencingTokenFloor stockFence(JdbcTemplate jdbc) {
 *     return () -> jdbc.queryForObject("SELECT coalesce(max(fence), 0) FROM stock", Long.class);
 * }
 * }</pre>
 * The check acquires the lock {@code locksmith:fencing-probe} once at startup and compares its token with the
 * floor. It is exact for the built-in stores, whose tokens grow store-wide (Redis: a counter floored at the server
 * clock; ZooKeeper: the creation zxid; etcd: the create revision), so a later token of any lock is above the probe's.
 */
@FunctionalInterface
public interface FencingTokenFloor {

    /** The highest token the resource accepted (or any value at least that high); 0 when it has seen none. */
    long highestAcceptedToken();
}
