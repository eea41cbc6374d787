package io.locksmith.redis;

/** The kit's basic rules as the documented ACL user ({@link RedisAclKit}) through Lettuce. */
class LettuceAclKitTest extends RedisAclKit {

    @Override
    protected String client() {
        return "lettuce";
    }
}
