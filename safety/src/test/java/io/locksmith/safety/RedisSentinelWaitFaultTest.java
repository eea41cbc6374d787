package io.locksmith.safety;

import io.locksmith.tck.TckTiming;

import java.util.Set;

/**
 * The fault rules on Redis with Sentinel whose clients wait for one replica ack per write ({@code waitReplicas=1}):
 * holder kill and pause (R9.1, R9.2), the client cut off from both data nodes or losing a reply (R9.4, R9.5, one
 * proxy per node through {@code natMap}), and the primary killed under contention (R9.6), which this deployment is
 * built to survive: Sentinel promotes the replica, which has every grant a client was told of.
 */
class RedisSentinelWaitFaultTest extends DeploymentFaultTck {

    RedisSentinelWaitFaultTest() {
        super(() -> new RedisSentinelDeployment(1), TckTiming.defaults(), Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
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
