package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;
import java.util.Set;

/**
 * The fault rules on Redis with Sentinel and the Lettuce transport ({@code client=lettuce}, {@code waitReplicas=1}, the
 * URI's default), in this JVM and in the victim JVMs: holder kill and pause (R9.1 to R9.3), the client cut off from
 * both data nodes (R9.4) or losing a reply (R9.5), Lettuce reaching each node through its proxy by the URI's
 * {@code natMap}, and the primary killed under contention (R9.6).
 */
class RedisSentinelLettuceFaultTest extends NodeKillFaultTck {

    RedisSentinelLettuceFaultTest() {
        super(() -> new RedisSentinelDeployment(1, "lettuce"), DeploymentShape.replicated(2), TckTiming.defaults(),
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    /** The deployment's URI with a 2 s command time-out, for a cold victim JVM's first Lettuce connection. */
    @Override
    protected String victimUri() {
        return super.victimUri().replace(RedisSingleDeployment.TIMEOUT, "timeout=2s");
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        return Map.of(FaultRule.R9_9, "runs in backend-redis's SentinelPartitionLettuceFaultTest, on a primary with two"
                        + " replicas and three Sentinels (the promoted replica needs a replica of its own to acknowledge)",
                FaultRule.R9_10, "runs in backend-redis's SentinelPartitionLettuceFaultTest, on a primary with two"
                        + " replicas and three Sentinels");
    }
}
