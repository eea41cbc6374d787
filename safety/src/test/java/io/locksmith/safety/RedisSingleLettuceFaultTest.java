package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;

import java.util.Set;

/**
 * The fault rules on one redis-server through the Lettuce transport ({@code client=lettuce}): holder kill and pause,
 * cut-off client, lost reply, late renewals and releases, an acquire cut between its steps, and the server restarted
 * without persistence (R9.19).
 */
class RedisSingleLettuceFaultTest extends DeploymentFaultTck {

    RedisSingleLettuceFaultTest() {
        super(() -> new RedisSingleDeployment("lettuce"), DeploymentShape.singleNode(), TckTiming.defaults(),
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    /**
     * The deployment's URI with a 2 s command time-out: a victim JVM is cold, and its first Lettuce client loads Netty
     * and connects within the time-out, which 300 ms on a loaded machine misses.
     */
    @Override
    protected String victimUri() {
        return super.victimUri().replace(RedisSingleDeployment.TIMEOUT, "timeout=2s");
    }
}
