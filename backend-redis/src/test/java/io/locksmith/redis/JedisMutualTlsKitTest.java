package io.locksmith.redis;

/** The kit's basic rules over mutual TLS ({@link RedisMutualTlsKit}) through Jedis. */
class JedisMutualTlsKitTest extends RedisMutualTlsKit {

    @Override
    protected String client() {
        return "jedis";
    }
}
