package io.locksmith.safety;

import io.locksmith.tck.LockShape;
import io.locksmith.tck.fault.FaultRule;

import java.util.HashMap;
import java.util.Map;

/**
 * Which fault rules a primitive's kit class runs (SPEC R11 to R13 under R9's faults). A holding of a semaphore or a
 * write lock is several store locks at once, and an election's holding is a candidate's term, so the rules about
 * holders run through them ({@code LockFaultTck.lockShape()}): on each store's single node every one of them, through
 * each of the three shapes; on a replicated deployment the rules of its nodes (a node killed, a failover, a partition,
 * a frozen leader, a session) through one or two shapes, the holder's own faults having run on the single node of the
 * same store.
 */
final class PrimitiveFaultRules {

    private PrimitiveFaultRules() {
    }

    /**
     * The rules a replicated deployment's primitive kit class leaves to the single node of its store, added to those
     * its mutex kit class does not run here ({@code inherited}).
     */
    static Map<FaultRule, String> holderRulesOnTheSingleNode(Map<FaultRule, String> inherited, LockShape shape,
                                                            String singleNodeClass) {
        Map<FaultRule, String> rules = new HashMap<>(inherited);
        String why = "a holder killed, paused or cut off through the " + shape.argument() + " runs in " + singleNodeClass
                + " (the store's single node); this class runs the rules of the deployment's nodes through it";
        for (FaultRule rule : new FaultRule[]{FaultRule.R9_1, FaultRule.R9_2, FaultRule.R9_3, FaultRule.R9_4}) {
            rules.putIfAbsent(rule, why);
        }
        return Map.copyOf(rules);
    }
}
