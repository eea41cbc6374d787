package io.locksmith.safety;

import io.locksmith.tck.TckTiming;

import java.util.Set;

/**
 * The fault rules on Redis with Sentinel whose clients wait for one replica ack per write ({@code waitReplicas=1}):
 * holder kill and pause (R9.1, R9.2), and the primary killed under contention (R9.6), which this deployment is
 * built to survive: Sentinel promotes the replica, which has every grant a client was told of.
 */
class RedisSentinelWaitFaultTest extends DeploymentFaultTck {

    RedisSentinelWaitFaultTest() {
        super(() -> new RedisSentinelDeployment(1), TckTiming.defaults(), Set.of(Fault.HOLDER_KILL));
    }

    @Override
    protected void killStoreNode() {
        killNodeOfDeployment();
    }

    @Override
    protected void restartStoreNode() {
        restartNodeOfDeployment();
    }
}
