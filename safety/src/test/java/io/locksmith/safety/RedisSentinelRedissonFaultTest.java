package io.locksmith.safety;

import io.locksmith.tck.TckTiming;

import java.util.Set;

/**
 * The rules that go through proxies, on Redis with Sentinel and the Redisson transport ({@code client=redisson},
 * {@code waitReplicas=1}, the URI's default): the client cut off from both data nodes (R9.4) or losing a reply
 * (R9.5), Redisson reaching each node through its proxy by the URI's {@code natMap} (Redisson's {@code NatMapper}).
 * The rules of victim JVMs, node kills and failovers run with Jedis ({@link RedisSentinelWaitFaultTest}); they do not
 * depend on the transport in this JVM.
 */
class RedisSentinelRedissonFaultTest extends DeploymentFaultTck {

    RedisSentinelRedissonFaultTest() {
        super(() -> new RedisSentinelDeployment(1, "redisson"), TckTiming.defaults(), Set.of(Fault.CLIENT_PARTITION));
    }
}
