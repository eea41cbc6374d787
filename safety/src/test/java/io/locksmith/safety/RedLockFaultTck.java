package io.locksmith.safety;

import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * The fault rules on RedLock over independent primaries: holder kill and pause (R9.1, R9.2), the client cut off from
 * every primary or losing a reply (R9.4, R9.5, one proxy per primary), one primary killed (R9.6), and the holder's
 * client cut from a majority of the primaries while it still reaches the others (R9.9).
 */
abstract class RedLockFaultTck extends MinorityPartitionFaultTck {

    RedLockFaultTck(int primaries) {
        super(() -> new RedLockDeployment(primaries), DeploymentShape.replicated(primaries), TckTiming.defaults(),
                Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
    }

    /** The lease running out on the primaries the holder's client was cut from, then the majority's acquire. */
    @Override
    protected Duration minorityPartitionBound() {
        return RedLockDeployment.PARTITION_LEASE.plus(timing().slack());
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        return Map.of(FaultRule.R9_10, "RedLock has no leader or primary: its primaries are independent and equal, so "
                + "freezing one moves no lock elsewhere; a frozen majority is what R9.4 checks (every reply withheld), "
                + "and a frozen minority leaves the holder its majority");
    }
}
