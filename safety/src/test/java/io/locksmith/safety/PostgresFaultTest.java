package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;

import java.util.Set;

/**
 * The fault rules on one PostgreSQL server: holder kill and pause, cut-off client, lost reply, and the server
 * crashed and recovered inside a critical section (R9.6).
 */
class PostgresFaultTest extends DeploymentFaultTck {

    PostgresFaultTest() {
        super(PostgresDeployment::new, DeploymentShape.singleNode(), TckTiming.defaults(),
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    @Override
    protected void killStoreNode() {
        killNodeOfDeployment();
    }
}
