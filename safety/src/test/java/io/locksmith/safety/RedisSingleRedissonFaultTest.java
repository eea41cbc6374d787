package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;
import java.util.Set;

/**
 * The fault rules on one redis-server through the Redisson transport ({@code client=redisson}): holder kill and pause,
 * cut-off client, lost reply, late renewals and releases, an acquire cut between its steps, and the server restarted
 * without persistence (R9.19).
 */
class RedisSingleRedissonFaultTest extends DeploymentFaultTck {

    RedisSingleRedissonFaultTest() {
        super(() -> new RedisSingleDeployment("redisson"), DeploymentShape.singleNode(), TckTiming.defaults(),
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    /**
     * The deployment's URI with a 2 s command time-out: a victim JVM is cold, and its first Redisson client loads
     * Netty and pings the server within the time-out, which 300 ms on a loaded machine misses.
     */
    @Override
    protected String victimUri() {
        return super.victimUri().replace(RedisSingleDeployment.TIMEOUT, "timeout=2s");
    }

    /** Found when this class first ran (issue 30); reported, not fixed on that branch. */
    @Override
    protected Map<FaultRule, String> knownViolations() {
        return Map.of(FaultRule.R7_7, "after the proxy to the one redis-server was silent for 2 s, acquire(8s) of a free"
                + " lock through Redisson still failed 6 s after the store answered again, every attempt with 'did not"
                + " answer acquire within 300ms' (3 of 3 runs; the same with the silent requests delivered late instead of"
                + " dropped). Redisson over Sentinel (RedisSentinelRedissonFaultTest) and Jedis on one node pass R7.7");
    }
}
