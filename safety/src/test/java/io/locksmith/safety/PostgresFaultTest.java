package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;
import java.util.Set;

/**
 * The fault rules on one PostgreSQL server: holder kill and pause, cut-off client, lost reply, and the server
 * crashed and recovered inside a critical section (R9.6).
 */
class PostgresFaultTest extends DeploymentFaultTck {

    /**
     * R7.7 on PostgreSQL, found in the CI runs of issue 31 (the standby deployment 2 of 2 runs, the single server 2 of
     * 3, at load 8-20; it had passed before): after both proxies swallowed packets for 2 s, acquire(8s) failed at 8 s
     * with HikariCP's "Connection is not available, request timed out after 300ms (total=0, active=0, idle=0)": the
     * pool held no connection and opened none in the 6 s after the store was back. Open bug, not yet understood; a
     * suspect is a connection attempt begun during the blip (accepted by the proxy, its start-up packet swallowed)
     * holding HikariCP's one creator thread until pgjdbc's login time-out.
     */
    static final String R7_7_AFTER_A_SILENT_BLIP = "after a 2 s silent blip of every server, acquire(8s) failed with"
            + " HikariCP 'Connection is not available, request timed out after 300ms (total=0)': the pool opened no"
            + " connection in the 6 s after the store was back (CI runs of issue 31, load 8-20; open bug)";


    PostgresFaultTest() {
        super(PostgresDeployment::new, DeploymentShape.singleNode(), TckTiming.defaults(),
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    @Override
    protected void killStoreNode() {
        killNodeOfDeployment();
    }

    @Override
    protected Map<FaultRule, String> knownViolations() {
        return Map.of(FaultRule.R7_7, R7_7_AFTER_A_SILENT_BLIP);
    }
}
