package io.locksmith.redis;

/**
 * Rules R9.9 and R9.10 on Redis Sentinel with the Redisson transport ({@code client=redisson}) and the default
 * {@code WAIT} for one replica: the same partitions as {@link SentinelPartitionFaultTest}, whose Jedis clients they
 * do not share (Redisson finds the promoted primary through its own Sentinel listener and renews through its own
 * connection pool).
 */
class SentinelPartitionRedissonFaultTest extends SentinelPartitionFaultTest {

    @Override
    protected String transport() {
        return "redisson";
    }
}
