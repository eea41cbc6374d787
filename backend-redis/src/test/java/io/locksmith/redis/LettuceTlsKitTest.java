package io.locksmith.redis;

/** The kit's basic rules over TLS as the ACL user ({@link RedisTlsKit}) through Lettuce. */
class LettuceTlsKitTest extends RedisTlsKit {

    @Override
    protected String client() {
        return "lettuce";
    }
}
