package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.Map;
import java.util.Set;

/**
 * The fault rules on a PostgreSQL primary with a synchronous streaming standby ({@code remote_apply}): holder kill
 * and pause (R9.1 to R9.3), the client cut off from both servers or losing a reply (R9.4, R9.5, R9.16 to R9.18, one
 * proxy per server), the primary killed under contention and the standby promoted (R9.6), which this deployment is
 * built to survive, and a failover after a grant (R9.7: the grant survives, the first holder keeps the lock).
 */
class PostgresStandbyFaultTest extends NodeKillFaultTck {

    /** Why R9.9 and R9.10 do not apply: PostgreSQL has no election that a cut-off or frozen primary could lose. */
    static final String NO_ELECTION = "PostgreSQL does not fail over by itself: a standby is promoted by an operator"
            + " or a failover manager (Patroni), which must first stop the old primary (STONITH, or Patroni's leader"
            + " key); there is no majority that could promote while the old primary still serves, which is what the"
            + " rule checks a holder survives. Promoting a standby while the primary lives is a split brain no lock"
            + " client can undo (docs/POSTGRES.md, 'With a standby'); the promotion after the primary's death is R9.6";

    PostgresStandbyFaultTest() {
        super(PostgresStandbyDeployment::new, DeploymentShape.replicated(2), TckTiming.defaults(),
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    @Override
    protected void failOver() {
        failOverDeployment();
    }

    @Override
    protected Map<FaultRule, String> knownViolations() {
        return Map.of(FaultRule.R7_7, PostgresFaultTest.R7_7_AFTER_A_SILENT_BLIP);
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        return Map.of(FaultRule.R9_9, NO_ELECTION, FaultRule.R9_10, NO_ELECTION);
    }
}
