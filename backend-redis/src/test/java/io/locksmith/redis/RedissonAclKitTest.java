package io.locksmith.redis;

/** The kit's basic rules as the documented ACL user ({@link RedisAclKit}) through Redisson. */
class RedissonAclKitTest extends RedisAclKit {

    @Override
    protected String client() {
        return "redisson";
    }
}
