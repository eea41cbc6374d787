/**
 * Redis locks for Locksmith ({@code redis://}, {@code rediss://}, {@code redis-sentinel://},
 * {@code redlock://}), through Jedis or, when the application adds one of them, Redisson or Lettuce.
 */
module io.locksmith.redis {
    requires io.locksmith;
    requires org.slf4j;
    requires redis.clients.jedis;
    requires org.apache.commons.pool2;
    // Optional, as in the POM: only ?client=redisson and RedissonLocks need it; the application requires it.
    requires static redisson;
    // Optional as well: only ?client=lettuce needs it (automatic module name of lettuce-core: lettuce.core).
    requires static lettuce.core;

    exports io.locksmith.redis;

    provides io.locksmith.spi.LockProviderFactory with io.locksmith.redis.RedisLockProviderFactory;
}
