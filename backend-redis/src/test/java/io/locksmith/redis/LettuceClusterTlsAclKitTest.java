package io.locksmith.redis;

/** {@link ClusterTlsAclKitTest} through Lettuce. */
class LettuceClusterTlsAclKitTest extends ClusterTlsAclKitTest {

    @Override
    String client() {
        return "lettuce";
    }

    @Override
    String slotMapRight() {
        return "+cluster|nodes";
    }
}
