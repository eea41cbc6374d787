package io.locksmith.redis;

/** The kit's basic rules over mutual TLS ({@link RedisMutualTlsKit}) through Lettuce. */
class LettuceMutualTlsKitTest extends RedisMutualTlsKit {

    @Override
    protected String client() {
        return "lettuce";
    }
}
