package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;
import java.util.Set;

/**
 * The fault rules on Redis with Sentinel and the Redisson transport ({@code client=redisson}, {@code waitReplicas=1},
 * the URI's default), in this JVM and in the victim JVMs: holder kill and pause (R9.1 to R9.3), the client cut off from
 * both data nodes (R9.4) or losing a reply (R9.5), Redisson reaching each node through its proxy by the URI's
 * {@code natMap} (Redisson's {@code NatMapper}), and the primary killed under contention (R9.6).
 */
class RedisSentinelRedissonFaultTest extends NodeKillFaultTck {

    RedisSentinelRedissonFaultTest() {
        super(() -> new RedisSentinelDeployment(1, "redisson"), DeploymentShape.replicated(2), TckTiming.defaults(),
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    /**
     * The deployment's URI with a 2 s command time-out: a victim JVM is cold, and its first Redisson client loads
     * Netty and pings the Sentinel and the primary within the time-out, which 300 ms on a loaded machine misses
     * ("Can't connect to servers!"); the deployment warms this JVM up for the same reason.
     */
    @Override
    protected String victimUri() {
        return super.victimUri().replace(RedisSingleDeployment.TIMEOUT, "timeout=2s");
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        return RedisSentinelWaitFaultTest.PARTITIONS_IN_BACKEND_REDIS;
    }
}
