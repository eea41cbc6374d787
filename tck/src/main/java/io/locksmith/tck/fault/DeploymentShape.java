package io.locksmith.tck.fault;

import java.util.EnumSet;
import java.util.Set;

/**
 * What a fault-kit class runs against, as its {@link LockFaultTck#deploymentShape()} declares it: one store server,
 * or several members that together keep the locks (a consensus ensemble, a primary with replicas, RedLock's
 * independent primaries). The shape decides which fault rules the kit class must run: a rule the shape requires
 * whose hook the class does not give FAILS, with a message saying how to give it, instead of being skipped; a
 * replicated store tested as one node, or without its partition hooks, is never green by omission.
 *
 * <ul>
 * <li>Every shape (a store reached over a network): the holder-process rules (R9.1 to R9.3, hook
 *     {@code victimUri()}) and the client-network rules (R7.7, R8.10, R9.4, R9.5, R9.8, R9.16 to R9.18, hooks
 *     {@code proxiedAddresses()} and {@code uriThrough(...)}).</li>
 * <li>{@link #singleNode()}: also the restart of the store (R9.19, {@code restartStore()}).</li>
 * <li>{@link #replicated(int)}: also a member killed (R9.6, {@code killStoreNode()}), a member cut from its peers
 *     (R9.9, {@code isolateMinorityMember()}) and a leader or primary frozen (R9.10, {@code freezeMember()}).</li>
 * </ul>
 * A rule that runs in another kit class of the same deployment, or does not apply to it (R9.10 on RedLock, which has
 * no leader), is declared in {@link LockFaultTck#rulesNotRunHere()} with the reason; then it is skipped, saying so.
 *
 * @param kind    one node or several members
 * @param members how many members hold the locks: 1 for a single node
 */
public record DeploymentShape(Kind kind, int members) {

    /** One store server, or several members. */
    public enum Kind {
        /** One store server: it cannot survive its own loss, and a restart is its failure. */
        SINGLE_NODE,
        /** Several members that together keep the locks, built to survive the loss of some of them. */
        REPLICATED
    }

    private static final Set<FaultRule> EVERY_SHAPE = EnumSet.of(FaultRule.R9_1, FaultRule.R9_2, FaultRule.R9_3,
            FaultRule.R7_7, FaultRule.R8_10, FaultRule.R9_4, FaultRule.R9_5, FaultRule.R9_8, FaultRule.R9_16,
            FaultRule.R9_17, FaultRule.R9_18);

    /**
     * @throws NullPointerException     if {@code kind} is null
     * @throws IllegalArgumentException if a single node has other than 1 member, or a replicated deployment fewer than 2
     */
    public DeploymentShape {
        java.util.Objects.requireNonNull(kind, "kind cannot be null");
        if (kind == Kind.SINGLE_NODE && members != 1) {
            throw new IllegalArgumentException("a single node has 1 member, was " + members);
        }
        if (kind == Kind.REPLICATED && members < 2) {
            throw new IllegalArgumentException("a replicated deployment has at least 2 members, was " + members);
        }
    }

    /** One store server (Redis without replicas, one ZooKeeper, etcd or PostgreSQL server). */
    public static DeploymentShape singleNode() {
        return new DeploymentShape(Kind.SINGLE_NODE, 1);
    }

    /**
     * {@code members} members that together keep the locks: a 3-member etcd cluster or ZooKeeper ensemble, a Redis
     * primary with its replicas under Sentinel, RedLock over 5 primaries.
     *
     * @throws IllegalArgumentException if {@code members} is below 2
     */
    public static DeploymentShape replicated(int members) {
        return new DeploymentShape(Kind.REPLICATED, members);
    }

    /** Whether this is a deployment of several members. */
    public boolean isReplicated() {
        return kind == Kind.REPLICATED;
    }

    /** The fault rules a kit class of this shape must run (or declare in {@code rulesNotRunHere()}). */
    public Set<FaultRule> requiredRules() {
        Set<FaultRule> rules = EnumSet.copyOf(EVERY_SHAPE);
        if (isReplicated()) {
            rules.addAll(EnumSet.of(FaultRule.R9_6, FaultRule.R9_9, FaultRule.R9_10));
        } else {
            rules.add(FaultRule.R9_19);
        }
        return rules;
    }

    /** Whether a kit class of this shape must run {@code rule}. */
    public boolean requires(FaultRule rule) {
        return requiredRules().contains(rule);
    }

    /** {@code single node} or {@code replicated, 3 members}: how reports name it. */
    @Override
    public String toString() {
        return isReplicated() ? "replicated, " + members + " members" : "single node";
    }
}
