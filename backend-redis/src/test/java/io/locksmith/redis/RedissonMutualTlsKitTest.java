package io.locksmith.redis;

/** The kit's basic rules over mutual TLS ({@link RedisMutualTlsKit}) through Redisson. */
class RedissonMutualTlsKitTest extends RedisMutualTlsKit {

    @Override
    protected String client() {
        return "redisson";
    }
}
