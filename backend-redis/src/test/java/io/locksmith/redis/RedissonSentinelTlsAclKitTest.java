package io.locksmith.redis;

/** {@link SentinelTlsAclKitTest} through Redisson. */
class RedissonSentinelTlsAclKitTest extends SentinelTlsAclKitTest {

    @Override
    String client() {
        return "redisson";
    }
}
