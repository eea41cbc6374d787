package io.locksmith.redis;

/** {@link SentinelTlsAclKitTest} through Lettuce. */
class LettuceSentinelTlsAclKitTest extends SentinelTlsAclKitTest {

    @Override
    String client() {
        return "lettuce";
    }
}
