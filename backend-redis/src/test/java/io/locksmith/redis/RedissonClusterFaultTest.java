package io.locksmith.redis;

/** {@link ClusterFaultTest} with Redisson in cluster mode as the transport ({@code client=redisson}). */
class RedissonClusterFaultTest extends ClusterFaultTest {

    @Override
    protected String transport() {
        return "redisson";
    }
}
