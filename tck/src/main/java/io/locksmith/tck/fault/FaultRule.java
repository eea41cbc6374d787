package io.locksmith.tck.fault;

import io.locksmith.Capability;
import io.locksmith.tck.TckRule;

import java.util.Locale;
import java.util.Optional;

/**
 * The fault rules of {@code docs/SPEC.md} (section R9, and R7.7 which needs a store that fails), one constant each, as {@link TckRule} lists the others:
 * each with the hook of {@link LockFaultTck} it needs, and the hint an implementer needs when it fails. A
 * self-test keeps this list, the spec and the test methods of {@link LockFaultTck} in sync.
 */
public enum FaultRule {

    R8_10("R8.10", TckRule.Level.MUST, null, "uriThrough(TcpProxy)", HowTo.PROXY,
            "A store that stops answering breaks no time bound",
            "every store call needs the URI's command time-out, stated by LockProvider.commandTimeout(); a lost lease"
                    + " is closed without a store call the caller waits for"),

    R7_7("R7.7", TckRule.Level.MUST, null, "uriThrough(TcpProxy)", HowTo.PROXY,
            "A bounded wait rides out a store failure and keeps its bound",
            "throw LockStoreException for every store failure (never an empty result), reconnect after it, and honour"
                    + " the command time-out of the URI; the shared client retries within the caller's wait"),

    R9_1("R9.1", TckRule.Level.MUST, null, "victimUri()", HowTo.VICTIM, "A killed holder's lock frees itself",
            "the lock must carry its TTL (or session timeout) in the store; check that nothing renews it"
                    + " once its holder's process is gone. A store that frees a dead holder's lock late by design"
                    + " (expiry in whole seconds, a session timeout longer than the lease) states it by scaling the"
                    + " kit's timing (docs/TCK.md, 'Timing on a slow machine'), never by a shorter TTL"),
    R9_2("R9.2", TckRule.Level.MUST, null, "victimUri()", HowTo.VICTIM,
            "A paused holder learns of its loss before its next write",
            "Grant.validity must not exceed what the store applies, measured from the request's send time"),
    R9_3("R9.3", TckRule.Level.MUST, Capability.FENCING, "victimUri()", HowTo.VICTIM,
            "A paused holder's late write is fenced",
            "the next holder's token must be greater than the paused holder's; check the token counter"),
    R9_4("R9.4", TckRule.Level.MUST, null, "uriThrough(TcpProxy)", HowTo.PROXY,
            "A holder cut off from the store stops before anyone else can start",
            "store calls need a time-out below the TTL; Grant.validity must count from the request's send time; a"
                    + " client that still renews after the cut reaches the store around the proxies (a member list the"
                    + " store handed out: keep it on TcpProxies.addressMap())"),
    R9_5("R9.5", TckRule.Level.MUST, null, "uriThrough(TcpProxy)", HowTo.PROXY,
            "An ambiguous acquire leaves no orphan lock",
            "an acquire whose answer is lost must either be cleaned up (releaseAmbiguous) or run out at its TTL"),
    R9_6("R9.6", TckRule.Level.MUST, null, "killStoreNode()", HowTo.NODE_KILL,
            "Exclusion holds when a store node is killed",
            "a grant must be acknowledged by a majority (quorum write) before the client is told"),
    R9_7("R9.7", TckRule.Level.MUST, Capability.FENCING, "failOver()", HowTo.FAILOVER,
            "A double grant after a failover is fenced",
            "tokens drawn on a promoted replica must exceed every token the lost primary handed out"),
    R9_8("R9.8", TckRule.Level.MUST, Capability.SESSION_BOUND, "uriThrough(TcpProxy)", HowTo.PROXY,
            "A session-bound holder is told before its session can expire",
            "report the session's suspension or loss through ProviderContext.lossListener() at once"),
    R9_9("R9.9", TckRule.Level.MUST, null, "isolateMinorityMember()", HowTo.PARTITION,
            "A holder on a minority member stops before the majority grants",
            "a renewal must be confirmed by the quorum (not answered from a cut-off member's stale state), and the"
                    + " lease deadline must not outlast what the majority allows (session timeout, replica TTL)"),
    R9_10("R9.10", TckRule.Level.MUST, null, "freezeMember()", HowTo.FREEZE,
            "A holder on a frozen leader or primary stops before another is granted",
            "a renewal the frozen member does not answer must fail within the command time-out (never be assumed),"
                    + " and the lease deadline must count from the last renewal the store confirmed"),
    R9_14("R9.14", TckRule.Level.MUST, null, "killStore()", HowTo.OUTAGE, "A known outage fails calls fast",
            "report a refused connection as LockStoreException with the client's ConnectException (or"
                    + " NoRouteToHostException, UnknownHostException) in its cause chain; a client that retries"
                    + " connecting on its own hides it"),
    R9_15("R9.15", TckRule.Level.MUST, null, "killStore()", HowTo.OUTAGE,
            "A store killed under a thousand waiters ends every wait and is usable after its restart",
            "every wait ends with LockStoreException within its bound; the client's probe must reach the restarted"
                    + " store (reconnect after a refused connection)"),
    R9_16("R9.16", TckRule.Level.MUST, null, "uriThrough(TcpProxy)", HowTo.PROXY,
            "A renewal that reaches the store late changes nothing of the next holder's lock",
            "renew must compare the owner and set the TTL in one atomic step (a script, a conditional update, a"
                    + " transaction); an ownership check answered before the lease ended must never be trusted by a"
                    + " write sent after it (HGET, then PEXPIRE)"),
    R9_17("R9.17", TckRule.Level.MUST, null, "uriThrough(TcpProxy)", HowTo.PROXY,
            "A release that reaches the store late removes nothing of the next holder's",
            "release must compare the owner and delete in one atomic step (a compare-and-delete script, DELETE ..."
                    + " WHERE owner = ?), never GET then DEL"),
    R9_18("R9.18", TckRule.Level.MUST, null, "uriThrough(TcpProxy)", HowTo.PROXY,
            "An acquire cut between its steps leaves no lock behind its TTL",
            "write the lock with its TTL, holder and token in one atomic step (SET NX PX, a script, one INSERT):"
                    + " a lock written before its TTL stays forever when its writer stops after the first step, and a"
                    + " later step that arrives late must not touch the next holder's lock"),
    R9_19("R9.19", TckRule.Level.MUST, null, "restartStore()", HowTo.RESTART,
            "A restarted store's holders are told, and its tokens keep increasing",
            "tokens must not come from a counter a restart can reset: floor them by a clock or a store epoch that"
                    + " survives it (Redis: max(counter + 1, TIME in microseconds)); a renewal after the restart must"
                    + " find a lost lock gone, owner-checked, never write it again");

    /** How to give each hook, for the failure of a rule the deployment shape requires. */
    private static final class HowTo {
        static final String VICTIM = "return the URI a child JVM opens to reach the same store (usually the URI of"
                + " newClient(), with a command time-out a cold JVM meets); the child runs with this JVM's class path";
        static final String PROXY = "return the host:port of every member a client talks to from proxiedAddresses()"
                + " (proxiedAddress() for one) and, from uriThrough(List<TcpProxy>), the URI of a client that reaches"
                + " them only through the kit's proxies (often proxies.rewrite(uri)), with a command time-out well below"
                + " timing().shortLease(); a client that learns members from the store (a member list, the addresses a"
                + " Sentinel announces) must be kept on the proxies with TcpProxies.addressMap() or its discovery turned"
                + " off";
        static final String NODE_KILL = "kill -9 one member the deployment is built to survive (the leader, a"
                + " minority primary: ServerProcess.kill()) in killStoreNode(), and start it again in restartStoreNode()";
        static final String FAILOVER = "kill the primary and return once a replica serves clients (failOver()), and"
                + " make the replica miss the last writes first (stopReplication())";
        static final String PARTITION = "return minorityMemberUri() (a client of one member only) and majorityUri()"
                + " (the others), cut that member from its peers while its clients still reach it in"
                + " isolateMinorityMember() (LoopbackFirewall.cutPorts and cutProcess), and end the cut in"
                + " healMinorityMember()";
        static final String FREEZE = "freeze the leader or primary that minorityMemberUri() names with SIGSTOP"
                + " (ServerProcess.pause()) in freezeMember() and resume it in thawMember(); a deployment without a"
                + " leader or primary (RedLock) declares R9.10 in rulesNotRunHere() with that reason";
        static final String RESTART = "kill -9 the store's server and start it again on the same address with"
                + " what its configuration keeps (ServerProcess.restart(): its data directory, nothing for a Redis"
                + " without persistence), returning once it serves clients";

        static final String OUTAGE = "kill -9 the store's server in killStore() (ServerProcess.kill()) and start it"
                + " again on the same address in restartStore() (io.locksmith.tck.fault.OutageFaultTck)";

        private HowTo() {
        }
    }

    private final String id;
    private final TckRule.Level level;
    private final Capability capability;
    private final String hook;
    private final String howTo;
    private final String title;
    private final String hint;

    FaultRule(String id, TckRule.Level level, Capability capability, String hook, String howTo, String title,
              String hint) {
        this.id = id;
        this.level = level;
        this.capability = capability;
        this.hook = hook;
        this.howTo = howTo;
        this.title = title;
        this.hint = hint;
    }

    /** The rule id as the spec writes it, e.g. {@code R9.1}. */
    public String id() {
        return id;
    }

    /** MUST, SHOULD or MAY (for a kit that implements the hook and a store that declares the capability). */
    public TckRule.Level level() {
        return level;
    }

    /** The capability that switches this rule on, or empty. */
    public Optional<Capability> capability() {
        return Optional.ofNullable(capability);
    }

    /** The hook of {@link LockFaultTck} the rule needs; without it the rule is skipped, naming the hook. */
    public String hook() {
        return hook;
    }

    /** How to give {@link #hook()}: what a rule required by the deployment shape says when the hook is missing. */
    public String howTo() {
        return howTo;
    }

    /** Whether every store with the hook must pass this rule (no capability switches it). */
    public boolean isRequired() {
        return capability == null;
    }

    /** A short title. */
    public String title() {
        return title;
    }

    /** Where an implementer should look when the rule fails. */
    public String hint() {
        return hint;
    }

    /** The anchor of the rule in {@code docs/SPEC.md}, e.g. {@code r9-1}. */
    public String anchor() {
        return id.toLowerCase(Locale.ROOT).replace('.', '-');
    }

    /** The prefix of its test method, e.g. {@code required_r9_1_}. */
    public String methodPrefix() {
        return (isRequired() ? "required_" : "optional_") + id.toLowerCase(Locale.ROOT).replace('.', '_') + "_";
    }

    /** The rule a test method tests, or empty. */
    public static Optional<FaultRule> ofMethod(String methodName) {
        return TckRule.idOfMethod(methodName).flatMap(FaultRule::byId);
    }

    /** The rule whose id is {@code id} ({@code R9.1}). */
    public static Optional<FaultRule> byId(String id) {
        for (FaultRule rule : values()) {
            if (rule.id.equalsIgnoreCase(id)) {
                return Optional.of(rule);
            }
        }
        return Optional.empty();
    }
}
