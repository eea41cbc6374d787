package io.locksmith.redis;

/** The lock rules on a Sentinel-monitored primary through Redisson. */
class RedissonSentinelTest extends SentinelTest {

    @Override
    protected String uri(String parameters) {
        return super.uri(parameters.isEmpty() ? "client=redisson" : parameters + "&client=redisson");
    }
}
