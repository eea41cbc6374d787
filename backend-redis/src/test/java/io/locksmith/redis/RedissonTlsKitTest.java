package io.locksmith.redis;

/** The kit's basic rules over TLS as the ACL user ({@link RedisTlsKit}) through Redisson. */
class RedissonTlsKitTest extends RedisTlsKit {

    @Override
    protected String client() {
        return "redisson";
    }
}
