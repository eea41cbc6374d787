package io.locksmith.tck.fault;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockEvent;
import io.locksmith.LockException;
import io.locksmith.LockOptions;
import io.locksmith.Capability;
import io.locksmith.tck.ContentionWorkload;
import io.locksmith.tck.FencedRegister;
import io.locksmith.tck.LockShape;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.WorkloadReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault rules of {@code docs/SPEC.md} (R9) as JUnit 5 tests: a holder killed, a holder paused past its
 * lease, a holder cut off from the store, an acquire whose answer is lost, another client's work between two steps of
 * a renewal, a release or an acquire, a store node killed, a failover, a store restarted.
 * A backend author extends this class once per deployment, declares its {@linkplain #deploymentShape() shape} (one
 * node or several members) and implements the hooks the deployment supports. A rule the shape requires whose hook is
 * missing FAILS, saying how to give the hook; any other rule whose hook is missing is skipped, naming the hook.
 * <pre>{@code
 * class RedisFaultTest extends LockFaultTck {
 *     static ServerProcess redis = ...;
 *
 *     protected DeploymentShape deploymentShape() { return DeploymentShape.singleNode(); }
 *     protected LockClient newClient() { return LockClient.open(victimUri()); }
 *     protected String victimUri() { return "redis://127.0.0.1:" + redis.port(); }
 *     protected String proxiedAddress() { return "127.0.0.1:" + redis.port(); }
 *     protected String uriThrough(TcpProxy proxy) { return "redis://127.0.0.1:" + proxy.port() + "?timeout=300ms"; }
 *     protected void restartStore() { redis.restart(); awaitPing(redis); }
 * }
 * }</pre>
 *
 * <p>Faults are real: the victim holder runs in a child JVM ({@link VictimProcess}) that is stopped with
 * SIGSTOP or killed with SIGKILL; partitions, lost answers and requests held back go through a {@link TcpProxy};
 * store nodes are killed and restarted by the subclass (usually with {@code ServerProcess.kill()} and
 * {@code restart()}). Rules await events; their bounds come from {@link #timing()}. Each rule has a time-out, so a
 * broken store cannot hang the kit.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@ExtendWith(FaultRuleFailureMessages.class)
public abstract class LockFaultTck {

    /**
     * Runs each task on a thread of its own: the tasks of these rules block (a held-back store call, a wait for a
     * lock), and the common pool, as small as the machine, would queue one behind another that waits for it.
     */
    private static final java.util.concurrent.Executor OWN_THREAD = task -> {
        Thread thread = new Thread(task, "lock-fault-tck");
        thread.setDaemon(true);
        thread.start();
    };

    /** How long a victim JVM may take to start and acquire (a cold JVM on a busy machine). */
    private static final Duration VICTIM_START = Duration.ofSeconds(30);

    private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();
    private TckTiming timing;

    /** A NEW client on the store under test, in this JVM. The kit closes every client it gets. */
    protected abstract LockClient newClient();

    /**
     * What this kit class runs against: {@link DeploymentShape#singleNode()} or
     * {@link DeploymentShape#replicated(int) replicated(members)}. The shape decides which rules must run: a rule it
     * requires whose hook this class does not give fails with how to give it ({@link DeploymentShape}), unless
     * {@link #rulesNotRunHere()} says where it runs instead.
     */
    protected abstract DeploymentShape deploymentShape();

    /**
     * The URI a child JVM opens to reach the same store as {@link #newClient()} (rules R9.1 to R9.3). The child
     * runs with this JVM's class path. Default: not supported, and those rules are skipped.
     */
    protected String victimUri() {
        throw new UnsupportedOperationException("victimUri()");
    }

    /**
     * The {@code host:port} of the store node a proxied client talks to (rules R7.7, R8.10, R9.4, R9.5, R9.8 and
     * R9.16 to R9.18); one node, so that cutting the proxy cuts the client off. Default: not supported.
     */
    protected String proxiedAddress() {
        throw new UnsupportedOperationException("proxiedAddress()");
    }

    /**
     * The URI of a client that reaches the store only through {@code proxy} (which forwards to
     * {@link #proxiedAddress()}), usually the store URI with the proxy's port. Give it a store time-out well
     * below the TTL of {@link TckTiming#shortLease()} where the URI allows, so a cut-off call fails in time.
     * Default: not supported, and the rules of {@link #proxiedAddress()} are skipped (or fail, where the
     * {@linkplain #deploymentShape() shape} requires them).
     */
    protected String uriThrough(TcpProxy proxy) {
        throw new UnsupportedOperationException("uriThrough(TcpProxy)");
    }

    /**
     * The {@code host:port} of every member a proxied client talks to, on a deployment of several (an etcd
     * cluster, a ZooKeeper ensemble, RedLock's masters): the kit puts a {@link TcpProxy} in front of each and
     * cuts, or holds back, them together (the rules of {@link #proxiedAddress()}). Default: {@link #proxiedAddress()}
     * alone.
     */
    protected List<String> proxiedAddresses() {
        return List.of(proxiedAddress());
    }

    /**
     * The URI of a client that reaches the store only through {@code proxies}, one per address of
     * {@link #proxiedAddresses()} and in its order; often {@link TcpProxies#rewrite(List, String)} of the store's URI.
     * A client that learns the members from the store must be kept on the proxies
     * ({@link TcpProxies#addressMap(List)}): the kit fails a rule whose client sent nothing through them. Default:
     * {@link #uriThrough(TcpProxy)} for a single proxy; a subclass that answers several addresses must override this.
     */
    protected String uriThrough(List<TcpProxy> proxies) {
        if (proxies.size() != 1) {
            throw new UnsupportedOperationException("uriThrough(List<TcpProxy>)");
        }
        return uriThrough(proxies.get(0));
    }

    /**
     * Kills (-9) one store node whose loss the deployment is built to survive: a ZooKeeper or etcd leader, a
     * RedLock minority node (rule R9.6). Default: not supported, and the rule is skipped; a single-node store
     * should leave it so, since it cannot survive the loss of its only node.
     */
    protected void killStoreNode() {
        throw new UnsupportedOperationException("killStoreNode()");
    }

    /** Brings back the node {@link #killStoreNode()} killed. Default: nothing (the deployment stays degraded). */
    protected void restartStoreNode() {
    }

    /**
     * Restarts the store as a crash and recovery would (rule R9.19): kills its server with -9 and starts it again on
     * the same address with what its configuration keeps (its data directory; nothing for a Redis without
     * persistence), and returns once it serves clients again. A single-node deployment must give it; a replicated one
     * has no use for it (R9.6 kills and restarts one of its members). Default: not supported.
     */
    protected void restartStore() {
        throw new UnsupportedOperationException("restartStore()");
    }

    /**
     * From now on, writes to the primary do not reach the replica that {@link #failOver()} will promote, as
     * asynchronous replication loses the last writes when a primary dies (rule R9.7); e.g. blackhole a
     * {@link TcpProxy} on the replication link. Default: nothing, and the failover may or may not lose the grant.
     */
    protected void stopReplication() {
    }

    /**
     * Kills the primary and returns once a replica is promoted and clients are served again (Redis Sentinel,
     * rule R9.7). Default: not supported, and the rule is skipped.
     */
    protected void failOver() {
        throw new UnsupportedOperationException("failOver()");
    }

    /**
     * The URI of a client that talks only to the member {@link #isolateMinorityMember()} cuts from its peers
     * (rule R9.9): a ZooKeeper connect string naming that member alone, an etcd endpoint of that member, the
     * Sentinel URI of a primary that is about to be cut from its replicas and sentinels. The lease and session
     * settings are the deployment's: the rule uses the client's default lock options. Rule R9.10 uses it too, for
     * the member {@link #freezeMember()} freezes. Default: not supported, and the rule is skipped.
     */
    protected String minorityMemberUri() {
        throw new UnsupportedOperationException("minorityMemberUri()");
    }

    /**
     * The URI of a client on the majority side of the partition {@link #isolateMinorityMember()} makes (rule
     * R9.9): the other members only. Default: not supported.
     */
    protected String majorityUri() {
        throw new UnsupportedOperationException("majorityUri()");
    }

    /**
     * Cuts the member {@link #minorityMemberUri()} talks to from its peers (quorum and election links, peer
     * links, replication and sentinels) while its clients still reach it: a minority partition, not a dead node
     * (usually with {@link LoopbackFirewall}). Returns at once. Default: not supported.
     */
    protected void isolateMinorityMember() {
        throw new UnsupportedOperationException("isolateMinorityMember()");
    }

    /**
     * Ends the partition of {@link #isolateMinorityMember()} and returns once the deployment serves clients on
     * both sides again. Default: nothing.
     */
    protected void healMinorityMember() {
    }

    /**
     * Freezes ({@code SIGSTOP}) the member {@link #minorityMemberUri()} talks to, which must be the leader of a
     * consensus ensemble or the primary of a replicated store (rule R9.10): the process keeps its sockets open and
     * answers nothing, as in a long GC pause or a stalled VM, while the other members elect a new leader or promote
     * a replica and serve {@link #majorityUri()}. Returns at once. Default: not supported, and the rule is skipped.
     */
    protected void freezeMember() {
        throw new UnsupportedOperationException("freezeMember()");
    }

    /**
     * Resumes ({@code SIGCONT}) the member {@link #freezeMember()} froze and returns once the deployment serves
     * clients on both sides again (the old leader or primary has rejoined as a follower or replica). Default: nothing.
     */
    protected void thawMember() {
    }

    /**
     * How long the majority may take to grant the lock after {@link #isolateMinorityMember()} (rule R9.9) or
     * {@link #freezeMember()} (rule R9.10): the
     * store's session or lease timeout plus an election or failover. The rule waits this long for a grant, and
     * requires the holder to be told within it. Default: {@code timing().slack()} times 5.
     */
    protected Duration minorityPartitionBound() {
        return timing().slack().multipliedBy(5);
    }

    /**
     * Rules this deployment is known to fail, each with what was seen: they are skipped with that reason, so a
     * failure found by the kit stays visible in every run (and in the report) until it is fixed, instead of
     * being hidden by a missing hook. Default: none. Use it only for an open, documented bug.
     */
    protected java.util.Map<FaultRule, String> knownViolations() {
        return java.util.Map.of();
    }

    /**
     * Rules this kit class does not run although the deployment is meant to meet them, each with where they run
     * instead or why they do not apply to it: e.g. "runs in {@code ZooKeeperMinorityPartitionFaultTest} on three
     * server JVMs, as members of an in-JVM ensemble cannot be cut by process", or "RedLock has no leader or
     * primary to freeze". Such a rule is skipped with a message saying "NOT RUN HERE on purpose" and the reason,
     * instead of naming a missing hook. Default: none. It is not for a rule the deployment fails: that is
     * {@link #knownViolations()}.
     */
    protected java.util.Map<FaultRule, String> rulesNotRunHere() {
        return java.util.Map.of();
    }

    /**
     * The primitive every holding of the rules is taken through; default {@link LockShape#MUTEX}, the store's lock
     * itself. A kit subclass that returns {@link LockShape#SEMAPHORE}, {@link LockShape#WRITE_LOCK} or
     * {@link LockShape#ELECTION_TERM} runs the rules about holders through that primitive's exclusive use (its gate and
     * permit locks together, or a candidate's term): a killed, paused or
     * cut-off holder (R9.1 to R9.4), a session that ends (R9.8), a store node killed (R9.6), a failover (R9.7), a
     * minority partition or a frozen leader (R9.9, R9.10), a restart (R9.19). A primitive holds several store locks at
     * once and is told of the loss of any, so these are the rules where a composition can fail on its own. The rules
     * about one store lock's own steps (R7.7, R8.10, R9.5, R9.16 to R9.18) are skipped under another shape, saying so:
     * the same deployment's mutex kit class runs them on the locks a primitive is made of.
     */
    protected LockShape lockShape() {
        return LockShape.MUTEX;
    }

    /**
     * The lock a rule takes its holdings through: {@code lockShape().lock(client, name, options)}. A kit subclass for
     * a store has no reason to override it; the kit's own tests do, to show that the rules catch a primitive built
     * wrongly over a correct store.
     */
    protected DistributedLock lockOf(LockClient client, String name, LockOptions options) {
        return shapeOfHoldings().lock(client, name, options);
    }

    /** The rules that run through every {@link #lockShape()}: those about holders, not about one lock's steps. */
    private static final java.util.Set<FaultRule> RULES_OF_EVERY_SHAPE = java.util.EnumSet.of(FaultRule.R9_1,
            FaultRule.R9_2, FaultRule.R9_3, FaultRule.R9_4, FaultRule.R9_6, FaultRule.R9_7, FaultRule.R9_8,
            FaultRule.R9_9, FaultRule.R9_10, FaultRule.R9_19);

    private LockShape shapeOfHoldings() {
        return Objects.requireNonNull(lockShape(), "lockShape() returned null");
    }

    /** Timing for this store; default {@link TckTiming#defaults()}. */
    protected TckTiming timing() {
        return TckTiming.defaults();
    }

    /**
     * Closes {@code resource} after the rule, once the kit has closed its clients, proxies and victims (in the
     * reverse order of registration): for a store a subclass starts per rule in its {@code @BeforeEach}.
     *
     * @return {@code resource}
     */
    protected final <T extends AutoCloseable> T closeAfterRule(T resource) {
        return closing(Objects.requireNonNull(resource, "resource cannot be null"));
    }

    @BeforeEach
    final void startRule() {
        timing = Objects.requireNonNull(timing(), "timing() returned null");
        shape();
    }

    @AfterEach
    final void closeEverything() {
        RuntimeException failure = null;
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                RuntimeException wrapped = e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
                if (failure == null) {
                    failure = wrapped;
                } else {
                    failure.addSuppressed(wrapped);
                }
            }
        }
        resources.clear();
        if (failure != null) {
            throw failure;
        }
    }

    // ================================================================ holders in another JVM

    @Test
    void required_r9_1_aKilledHoldersLockFreesItself() {
        String uri = requireHook(FaultRule.R9_1, this::victimUri);
        String name = name();
        VictimProcess victim = victim(uri, name, renewingShortLease());
        long victimToken = victim.awaitAcquired(VICTIM_START);
        LockClient other = client();
        assertTrue(lockOf(other, name, longLease()).tryAcquire().isEmpty(), "another client got lock '" + name
                + "' while the victim JVM held it (token " + victimToken + "): the victim and this JVM do not share a store");

        victim.kill();
        long killedAt = System.nanoTime();
        Duration bound = timing.shortLease().plus(timing.slack());
        Optional<Lease> next = lockOf(other, name, longLease()).tryAcquire(bound);
        assertTrue(next.isPresent(), "lock '" + name + "' held with a renewing lease of " + timing.shortLease()
                + " by a process killed with -9 was still taken " + millisSince(killedAt) + " ms later (bound " + bound + ")");
        if (declares(other, Capability.FENCING)) {
            assertTrue(next.get().fencingToken() > victimToken, "the next holder's token " + next.get().fencingToken()
                    + " is not above the killed holder's " + victimToken);
        }
        next.get().close();
    }

    @Test
    void required_r9_2_aPausedHolderLearnsOfItsLossBeforeItsNextWrite() {
        String uri = requireHook(FaultRule.R9_2, this::victimUri);
        PausedHolder paused = pauseHolderPastItsLease(uri);
        assertFalse(paused.lateWrite.heldBeforeWrite(), "the victim JVM, frozen (SIGSTOP) past its lease of "
                + timing.shortLease() + " while another client took lock '" + paused.name + "', still saw isHeld() == true"
                + " when it resumed and was about to write");
        await("the victim's onLost callback").atMost(timing.slack())
                .until(() -> !paused.victim.lossReports().isEmpty());
    }

    @Test
    void optional_r9_3_aPausedHoldersLateWriteIsFenced() {
        String uri = requireHook(FaultRule.R9_3, this::victimUri);
        requireCapability(FaultRule.R9_3);
        PausedHolder paused = pauseHolderPastItsLease(uri);
        assertTrue(paused.nextToken > paused.victimToken, "the next holder's token " + paused.nextToken
                + " is not above the paused holder's " + paused.victimToken);
        assertFalse(paused.lateWrite.accepted(), "the fenced register accepted the late write of the paused holder"
                + " (token " + paused.victimToken + ") after the next holder wrote with token " + paused.nextToken);
        assertEquals(0, paused.register.staleWritesAccepted(), paused.register::toString);
    }

    /** What a paused holder did: the victim froze past its lease, another holder wrote, the victim resumed and wrote. */
    private record PausedHolder(String name, VictimProcess victim, long victimToken, long nextToken,
                                FencedRegister register, VictimProcess.FencedWrite lateWrite) {
    }

    private PausedHolder pauseHolderPastItsLease(String uri) {
        String name = name();
        FencedRegister register = new FencedRegister();
        VictimProcess victim = victim(uri, name, renewingShortLease());
        long victimToken = victim.awaitAcquired(VICTIM_START);
        assertTrue(victim.fencedWrite(register, 1).accepted(), "the victim's first write was refused");

        victim.pause();
        LockClient next = client();
        Duration bound = timing.shortLease().plus(timing.slack());
        Lease lease = lockOf(next, name, longLease()).tryAcquire(bound).orElseThrow(() -> new AssertionError("lock '" + name
                + "' of a holder frozen with SIGSTOP was still taken after " + bound + " (its lease was " + timing.shortLease() + ")"));
        try (FencedRegister.Hold hold = register.enter(lease.fencingToken(), next.clientId())) {
            assertTrue(hold.write(2), "the next holder's write was refused");
        }
        victim.resume();
        VictimProcess.FencedWrite late = victim.fencedWrite(register, 3);
        long nextToken = lease.fencingToken();
        lease.close();
        return new PausedHolder(name, victim, victimToken, nextToken, register, late);
    }

    // ================================================================ a client cut off from the store

    @Test
    void required_r9_4_aHolderCutOffFromTheStoreStopsBeforeAnyoneElseCanStart() {
        List<String> addresses = requireHook(FaultRule.R9_4, this::proxiedAddresses);
        TcpProxies proxy = proxiesTo(addresses);
        String uri = requireHook(FaultRule.R9_4, () -> uriThrough(proxy.list()));
        String name = name();
        // The latest moment the store confirmed each store lock of the holding (the lock itself, or a primitive's
        // permit locks; its gate is given back once the holding is granted): the acquire or renewal request was sent
        // before it. The holding is confirmed until the earliest of them runs out.
        java.util.Map<String, Long> confirmedAtByLock = new java.util.concurrent.ConcurrentHashMap<>();
        LockClient cut = closing(LockClient.builder().uri(uri).listener(event -> {
            if (isStoreLockOfTheHolding(event.lockName(), name)
                    && (event.type() == LockEvent.Type.ACQUIRED || event.type() == LockEvent.Type.RENEWED)) {
                confirmedAtByLock.put(event.lockName(), System.nanoTime());
            }
        }).build());
        java.util.function.LongSupplier lastConfirmedAt = () -> confirmedAtByLock.values().stream()
                .min((a, b) -> Long.compare(a - b, 0)).orElse(0L);
        Lease lease = lockOf(cut, name, renewingShortLease()).acquire(timing.slack());
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        long acquiredAt = lastConfirmedAt.getAsLong();
        await("a first renewal").atMost(timing.shortLease().plus(timing.slack()))
                .until(() -> lastConfirmedAt.getAsLong() != acquiredAt);
        requireTrafficThrough(proxy, FaultRule.R9_4);

        Duration bound = timing.shortLease().plus(timing.slack());
        CutOff seen = cutOff(proxy, name, lease, bound, bound.multipliedBy(2));
        long confirmedAt = lastConfirmedAt.getAsLong();
        long ttl = timing.shortLease().toNanos();
        assertFalse(lease.isHeld(), "the holder cut off from the store still believed it held lock '" + name + "' "
                + bound.toMillis() + " ms after the cut, with a lease of " + timing.shortLease());
        assertTrue(seen.lastHeldCallStart() - (confirmedAt + ttl) <= 0, "the cut-off holder's isHeld() was still true "
                + TimeUnit.NANOSECONDS.toMillis(seen.lastHeldCallStart() - confirmedAt) + " ms after the store last"
                + " confirmed its lease of " + timing.shortLease() + ": the store could already have given the lock to"
                + " someone else");
        assertTrue(seen.otherGotItAt() != Long.MAX_VALUE, "nobody could take lock '" + name + "' within "
                + bound.multipliedBy(2) + " of cutting its holder off, with a lease of " + timing.shortLease());
        assertTrue(seen.lastHeldCallStart() - seen.otherGotItAt() < 0, "another client got lock '" + name + "' "
                + TimeUnit.NANOSECONDS.toMillis(seen.lastHeldCallStart() - seen.otherGotItAt()) + " ms before the"
                + " cut-off holder stopped believing it held it");
        await("the cut-off holder's onLost callback").atMost(timing.slack().multipliedBy(2)).until(() -> lost.get() != null);
        proxy.heal();
    }

    // ================================================================ a bounded wait through a store failure

    @Test
    void required_r7_7_aBoundedAcquireRidesOutAStoreFailureAndKeepsItsBound() {
        List<String> addresses = requireHook(FaultRule.R7_7, this::proxiedAddresses);
        TcpProxies proxy = proxiesTo(addresses);
        String uri = requireHook(FaultRule.R7_7, () -> uriThrough(proxy.list()));
        LockClient client = closing(LockClient.open(uri));
        String name = name();
        lockOf(client, name, longLease()).acquire(timing.slack()).close();
        requireTrafficThrough(proxy, FaultRule.R7_7);

        // A blip: the store stops answering for a while, then comes back, inside the caller's bound.
        Duration blip = timing.slack();
        Duration bound = blip.multipliedBy(4);
        proxy.blackhole();
        long cutAt = System.nanoTime();
        CompletableFuture<Lease> during = CompletableFuture.supplyAsync(() -> lockOf(client, name, longLease()).acquire(bound), OWN_THREAD);
        LockSupport.parkNanos(blip.toNanos());
        proxy.heal();
        Lease lease;
        try {
            lease = during.get(bound.plus(timing.slack()).toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError("acquire(" + bound + ") of the free lock '" + name + "' failed although the store"
                    + " was back " + blip.toMillis() + " ms into the wait: store errors inside a bounded wait must be"
                    + " retried until the wait runs out", e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("acquire(" + bound + ") of lock '" + name + "' had not returned "
                    + millisSince(cutAt) + " ms after the store stopped answering");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        long took = millisSince(cutAt);
        lease.close();
        assertTrue(took <= bound.plus(timing.slack()).toMillis(), "acquire(" + bound + ") through a store blip of "
                + blip.toMillis() + " ms took " + took + " ms");

        // A store that stays down: the wait ends in the store's error, within the bound plus a small slack.
        Duration wait = timing.slack();
        proxy.blackhole();
        long downAt = System.nanoTime();
        Throwable thrown = null;
        try {
            lockOf(client, name(), longLease()).acquire(wait).close();
        } catch (RuntimeException e) {
            thrown = e;
        } finally {
            proxy.heal();
        }
        long waited = millisSince(downAt);
        assertTrue(thrown instanceof io.locksmith.LockStoreException, "acquire(" + wait + ") against a store that"
                + " does not answer must throw the store's error (LockStoreException), threw " + thrown);
        assertTrue(waited <= wait.plus(timing.slack()).toMillis(), "acquire(" + wait + ") against a store that does not"
                + " answer returned only after " + waited + " ms (bound " + wait.plus(timing.slack()).toMillis() + " ms)");

        // A store that is gone (connections refused at once): the same, and never dressed up as a busy lock.
        proxy.close();
        long goneAt = System.nanoTime();
        Throwable refused = null;
        try {
            lockOf(client, name(), longLease()).acquire(wait).close();
        } catch (RuntimeException e) {
            refused = e;
        }
        long waitedForGone = millisSince(goneAt);
        assertTrue(refused instanceof io.locksmith.LockStoreException, "acquire(" + wait + ") against a store that"
                + " refuses connections must throw the store's error (LockStoreException) once the wait ran out, threw "
                + refused);
        assertTrue(waitedForGone <= wait.plus(timing.slack()).toMillis(), "acquire(" + wait + ") against a store that"
                + " refuses connections returned only after " + waitedForGone + " ms");
    }

    @Test
    void required_r8_10_aStoreThatStopsAnsweringBreaksNoTimeBound() {
        List<String> addresses = requireHook(FaultRule.R8_10, this::proxiedAddresses);
        TcpProxies proxy = proxiesTo(addresses);
        String uri = requireHook(FaultRule.R8_10, () -> uriThrough(proxy.list()));
        LockClient client = closing(LockClient.open(uri));
        String name = name();
        Lease lease = lockOf(client, name, renewingShortLease()).acquire(timing.slack());
        requireTrafficThrough(proxy, FaultRule.R8_10);
        // The URI of uriThrough(TcpProxy) sets a command time-out well below the slack.
        Duration bound = timing.slack().multipliedBy(2);
        proxy.blackhole();
        try {
            long start = System.nanoTime();
            Throwable tried = thrownBy(() -> lockOf(client, name(), longLease()).tryAcquire());
            long tryTook = millisSince(start);
            assertTrue(tried instanceof io.locksmith.LockStoreException, "tryAcquire() on a store that does not answer"
                    + " must throw LockStoreException, threw " + tried);
            assertTrue(tryTook <= bound.toMillis(), "tryAcquire() on a store that does not answer took " + tryTook
                    + " ms (bound " + bound.toMillis() + " ms): it must end within the store's command time-out");

            start = System.nanoTime();
            Throwable inspected = thrownBy(() -> client.inspect(name));
            long inspectTook = millisSince(start);
            assertTrue(inspected instanceof io.locksmith.LockStoreException, "inspect on a store that does not answer"
                    + " must throw LockStoreException, threw " + inspected);
            assertTrue(inspectTook <= bound.toMillis(), "inspect on a store that does not answer took " + inspectTook
                    + " ms (bound " + bound.toMillis() + " ms)");

            await("the lease of a holder whose store stopped answering turns lost")
                    .atMost(timing.shortLease().plus(timing.slack())).until(() -> !lease.isHeld());
            start = System.nanoTime();
            lease.close();
            long closeTook = millisSince(start);
            Duration closeBound = timing.shortLease().dividedBy(4);
            assertTrue(closeTook <= closeBound.toMillis(), "closing a lost lease took " + closeTook + " ms (bound "
                    + closeBound.toMillis() + " ms): it must make no blocking store call");
        } finally {
            proxy.heal();
        }
    }

    private static Throwable thrownBy(Runnable call) {
        try {
            call.run();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    @Test
    void optional_r9_8_aSessionBoundHolderIsToldBeforeItsSessionCanExpire() {
        List<String> addresses = requireHook(FaultRule.R9_8, this::proxiedAddresses);
        requireCapability(FaultRule.R9_8);
        TcpProxies proxy = proxiesTo(addresses);
        String uri = requireHook(FaultRule.R9_8, () -> uriThrough(proxy.list()));
        String name = name();
        LockClient cut = closing(LockClient.open(uri));
        // A lease far longer than the session: only the session's loss can tell the holder in time.
        Lease lease = lockOf(cut, name, longLease()).acquire(timing.slack());
        requireTrafficThrough(proxy, FaultRule.R9_8);
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        Duration bound = timing.slack().multipliedBy(2);
        try {
            CutOff seen = cutOff(proxy, name, lease, bound, bound);
            if (seen.otherGotItAt() == Long.MAX_VALUE) {
                // The store kept the cut-off holder's lock for the whole bound: nobody else could start.
                assertTrue(lease.isHeld() || lost.get() != null, "the lease is neither held nor reported lost");
                return;
            }
            assertTrue(seen.lastHeldCallStart() - seen.otherGotItAt() < 0, "another client got lock '" + name + "' "
                    + TimeUnit.NANOSECONDS.toMillis(seen.lastHeldCallStart() - seen.otherGotItAt()) + " ms before the"
                    + " cut-off holder (lease " + timing.longLease() + ") stopped believing it held it: its store"
                    + " session expired and freed the lock, and nobody told the holder");
            await("the cut-off holder's onLost callback").atMost(timing.slack()).until(() -> lost.get() != null);
        } finally {
            proxy.heal();
        }
    }

    /**
     * Whether {@code lockName} is a store lock a holding of {@code name} keeps: the lock itself for the mutex, the
     * permit locks of a primitive ({@code NAME#permit:I}, {@code NAME#rw:I}), not its gate (given back at the grant).
     */
    private boolean isStoreLockOfTheHolding(String lockName, String name) {
        if (shapeOfHoldings() == LockShape.MUTEX) {
            return lockName.equals(name);
        }
        return lockName.startsWith(name + "#") && !lockName.endsWith("/gate");
    }

    /** What was seen after a holder was cut off: until when it believed it held the lock, when another got it. */
    private record CutOff(long cutAt, long lastHeldCallStart, long otherGotItAt) {
    }

    /**
     * Cuts the proxied holder of {@code lease} off (blackhole), while another client tries to take the lock every
     * 5 ms. Watches the holder's {@code isHeld()} until it turns false or {@code bound} passes, and the other
     * client until {@code otherBound} after the cut. Beliefs are judged by when a call began: a descheduled poller only makes
     * them look later, never earlier.
     */
    private CutOff cutOff(TcpProxies proxy, String name, Lease lease, Duration bound, Duration otherBound) {
        LockClient other = client();
        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Long> otherGotItAt = CompletableFuture.supplyAsync(() -> {
            while (!stop.get()) {
                try {
                    Optional<Lease> got = lockOf(other, name, longLease()).tryAcquire();
                    if (got.isPresent()) {
                        long at = System.nanoTime();
                        got.get().close();
                        return at;
                    }
                } catch (LockException e) {
                    // A store error of the other client (a dropped connection, a store busy expiring the cut-off
                    // session) is not what the rule is about: try again.
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            return Long.MAX_VALUE;
        }, OWN_THREAD);
        proxy.blackhole();
        long cutAt = System.nanoTime();
        long lastHeldCallStart = cutAt;
        long giveUpAt = cutAt + bound.toNanos();
        while (System.nanoTime() - giveUpAt < 0) {
            long callStart = System.nanoTime();
            if (!lease.isHeld()) {
                break;
            }
            lastHeldCallStart = callStart;
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        long otherAt;
        try {
            long left = cutAt + otherBound.toNanos() - System.nanoTime();
            otherAt = otherGotItAt.get(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            otherAt = Long.MAX_VALUE;
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError("the other client failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } finally {
            stop.set(true);
        }
        return new CutOff(cutAt, lastHeldCallStart, otherAt);
    }

    @Test
    void required_r9_5_anAmbiguousAcquireLeavesNoOrphanLock() {
        List<String> addresses = requireHook(FaultRule.R9_5, this::proxiedAddresses);
        TcpProxies proxy = proxiesTo(addresses);
        String uri = requireHook(FaultRule.R9_5, () -> uriThrough(proxy.list()));
        String name = name();
        LockClient through = closing(LockClient.open(uri));
        // Open the connections first, so that the dropped reply is the acquire's, not a handshake's.
        through.lock(name + "-warm-up", longLease()).tryAcquire(timing.slack()).ifPresent(Lease::close);
        requireTrafficThrough(proxy, FaultRule.R9_5);
        long droppedBefore = proxy.droppedReplies();

        proxy.dropNextReplies(1);
        CompletableFuture<Optional<Lease>> attempt = CompletableFuture.supplyAsync(
                () -> lockOf(through, name, renewingShortLease()).tryAcquire(), OWN_THREAD);
        await("the proxy to drop a reply").atMost(timing.slack()).until(() -> proxy.droppedReplies() > droppedBefore);
        Optional<Lease> outcome;
        LockException failure = null;
        try {
            outcome = outcomeOf(attempt, timing.slack());
            if (outcome == null) {
                // No time-out of its own ended the call. On a real network a reply is lost with its connection,
                // so cut it now, as the host or a middlebox dropping it would; then the call must end.
                proxy.resetAll();
                outcome = outcomeOf(attempt, timing.slack().multipliedBy(2));
                assertTrue(outcome != null, "an acquire whose answer was lost did not return within "
                        + timing.slack().multipliedBy(3) + ", even after its connection was reset");
            }
        } catch (LockException e) {
            failure = e;
            outcome = Optional.empty();
        }
        proxy.heal();
        if (outcome.isPresent()) {
            // The client recovered its own grant: somebody knows it holds the lock, which is all this rule asks.
            Lease lease = outcome.get();
            assertTrue(lease.isHeld(), "an acquire that answered with a lease is not held");
            lease.close();
        } else {
            assertEquals(0, through.heldCount(), "the client holds a store lock although its acquire reported "
                    + (failure == null ? "no lock" : failure));
        }
        LockClient other = client();
        Duration bound = timing.shortLease().plus(timing.slack());
        long start = System.nanoTime();
        Optional<Lease> next = lockOf(other, name, longLease()).tryAcquire(bound);
        assertTrue(next.isPresent(), "lock '" + name + "' was still taken " + millisSince(start) + " ms after an acquire"
                + " whose answer was lost ended with " + (failure == null ? "no lease" : failure)
                + ": a lock nobody thinks it holds stayed behind longer than its TTL of " + timing.shortLease());
        next.get().close();
    }

    // ================================================================ another client between a provider's steps

    @Test
    void required_r9_16_aRenewalThatReachesTheStoreLateChangesNothingOfTheNextHoldersLock() {
        List<String> addresses = requireHook(FaultRule.R9_16, this::proxiedAddresses);
        TcpProxies proxy = proxiesTo(addresses);
        String uri = requireHook(FaultRule.R9_16, () -> uriThrough(proxy.list()));
        String name = name();
        AtomicLong renewals = new AtomicLong();
        // Armed from the renewal event itself: a renewal has just ended, all of its steps answered, so the next
        // exchange is the first step of the next renewal. Armed from the test's thread instead, the hold could start
        // between the two steps of a renewal (after its check's answer, before its write was sent) and then hold the
        // next renewal whole, which a check-then-set renewal survives: under load that let one through (CI, 2 Dec).
        AtomicBoolean armOnNextRenewal = new AtomicBoolean();
        AtomicLong armedAt = new AtomicLong();
        AtomicReference<TcpProxies> toArm = new AtomicReference<>();
        LockClient holderClient = opened(() -> LockClient.builder().uri(uri).listener(event -> {
            if (event.lockName().equals(name) && event.type() == LockEvent.Type.RENEWED) {
                renewals.incrementAndGet();
                if (armOnNextRenewal.compareAndSet(true, false)) {
                    toArm.get().holdRequestsAfterNextReply();
                    armedAt.set(System.nanoTime());
                }
            }
        }).build());
        toArm.set(proxy);
        Lease lease = lockOf(holderClient, name, renewingShortLease()).acquire(timing.slack());
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        // After a first renewal the client's connections are open and idle: what follows is the next renewal.
        await("a first renewal").atMost(timing.shortLease().plus(timing.slack())).until(() -> renewals.get() > 0);
        requireTrafficThrough(proxy, FaultRule.R9_16);
        Belief belief = Belief.watch(lease);
        try {
            // The next exchange (a renewal, or its first step) goes through; whatever follows it is held back: the
            // second step of a renewal made of two, and every later renewal. The lease runs out meanwhile.
            armOnNextRenewal.set(true);
            await("a request of the holder held back").atMost(timing.shortLease().multipliedBy(2).plus(timing.slack()))
                    .until(() -> proxy.heldRequests() > 0);
            long heldAt = System.nanoTime();
            NextHolder next = takeOver(name, timing.shortLease().plus(timing.slack()), "while its holder's renewals were"
                    + " held back by the network");
            proxy.releaseRequests();
            long releasedAt = System.nanoTime();
            assertNextHolderUntouched("renewal", name, next, releasedAt, timing.shortLease());
            await("the stale holder's onLost callback").atMost(timing.slack()).until(() -> lost.get() != null);
            // For the record (docs quote these), from the moment the proxies were armed.
            System.out.printf("R9.16 %s: first request held at +%d ms; next holder granted at +%d ms; stale requests"
                            + " delivered at +%d ms; the stale holder was told %s%n", getClass().getSimpleName(),
                    TimeUnit.NANOSECONDS.toMillis(heldAt - armedAt.get()),
                    TimeUnit.NANOSECONDS.toMillis(next.grantedAt() - armedAt.get()),
                    TimeUnit.NANOSECONDS.toMillis(releasedAt - armedAt.get()), lost.get().reason());
            assertFalse(lease.isHeld(), "the holder whose renewal reached the store after lock '" + name + "' was"
                    + " granted to another client still sees its lease as held");
            belief.stop();
            assertTrue(belief.lastHeldCallStart() - next.grantedAt() < 0, "the holder whose renewals were held back"
                    + " still believed it held lock '" + name + "' " + TimeUnit.NANOSECONDS.toMillis(
                    belief.lastHeldCallStart() - next.grantedAt()) + " ms after another client was granted it: its late"
                    + " renewal answered 'renewed'");
            if (declares(holderClient, Capability.FENCING)) {
                assertTrue(next.token() > lease.fencingToken(), "the next holder's token " + next.token()
                        + " is not above the stale holder's " + lease.fencingToken());
            }
            next.lease().close();
        } finally {
            belief.stop();
            proxy.releaseRequests();
        }
    }

    @Test
    void required_r9_17_aReleaseThatReachesTheStoreLateRemovesNothingOfTheNextHolders() {
        long startedAt = System.nanoTime();
        List<String> addresses = requireHook(FaultRule.R9_17, this::proxiedAddresses);
        requireHook(FaultRule.R9_17, () -> uriThrough(proxiesTo(addresses).list()));
        // A first client may set the store up (a schema): done here, so that the two below do not race to do it.
        client().inspect(name());
        // Two interleavings at once, on two names, each through its own proxies: the whole release held back, and
        // a release whose first step is answered while what follows it is held back.
        CompletableFuture<Void> whole = CompletableFuture.runAsync(() -> lateRelease(addresses, false), OWN_THREAD);
        CompletableFuture<Void> split = CompletableFuture.runAsync(() -> lateRelease(addresses, true), OWN_THREAD);
        joinBoth(whole, split);
        System.out.printf("R9.17 %s: both interleavings done in %d ms%n", getClass().getSimpleName(), millisSince(startedAt));
    }

    /**
     * Rule R9.17 on one name: a holder with a fixed short lease closes it while its requests are held back (all of
     * them, or those after the release's first answer when {@code afterFirstStep}); another client takes the lock
     * once the lease ran out; then the held requests reach the store.
     */
    private void lateRelease(List<String> addresses, boolean afterFirstStep) {
        TcpProxies proxy = proxiesTo(addresses);
        String uri = uriThrough(proxy.list());
        String name = name();
        AtomicLong releasedEvents = new AtomicLong();
        LockClient holderClient = opened(() -> LockClient.builder().uri(uri).listener(event -> {
            if (event.lockName().equals(name) && event.type() == LockEvent.Type.RELEASED) {
                releasedEvents.incrementAndGet();
            }
        }).build());
        // A fixed lease: no renewal shares the connection with the release.
        Lease lease = lockOf(holderClient, name, fixedShortLease()).acquire(timing.slack());
        requireTrafficThrough(proxy, FaultRule.R9_17);
        String what = afterFirstStep ? "a release whose first step was answered and whose next steps were held back"
                : "a release held back whole";
        try {
            if (afterFirstStep) {
                proxy.holdRequestsAfterNextReply();
            } else {
                proxy.holdRequests();
            }
            long closedAt = System.nanoTime();
            AtomicLong closeReturnedAt = new AtomicLong();
            CompletableFuture<Void> closing = CompletableFuture.runAsync(lease::close, OWN_THREAD)
                    .whenComplete((done, failed) -> closeReturnedAt.set(System.nanoTime()));
            if (!afterFirstStep) {
                await("the release of lock '" + name + "' sent to the store").atMost(timing.slack())
                        .until(() -> proxy.heldRequests() > 0);
            }
            NextHolder next = takeOver(name, timing.shortLease().plus(timing.slack()), "after " + what
                    + " (lease " + timing.shortLease() + ")");
            proxy.releaseRequests();
            long releasedAt = System.nanoTime();
            assertNextHolderUntouched(afterFirstStep ? "release (its second step)" : "release", name, next, releasedAt,
                    timing.shortLease());
            String outcome = "returned";
            try {
                closing.get(timing.slack().toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                // A store error is an honest "unknown" for a release that could not be answered in time.
                outcome = "threw " + e.getCause().getClass().getSimpleName();
                if (!(e.getCause() instanceof LockException)) {
                    throw new AssertionError("closing the lease of lock '" + name + "' failed with " + e.getCause(),
                            e.getCause());
                }
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("closing the lease of lock '" + name + "' after " + what + " had not returned "
                        + timing.slack() + " after the held requests were let through");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            System.out.printf("R9.17 %s, %s: next holder granted at +%d ms; late requests delivered at +%d ms;"
                            + " close() %s at +%d ms; checks done at +%d ms%n", getClass().getSimpleName(), what,
                    TimeUnit.NANOSECONDS.toMillis(next.grantedAt() - closedAt),
                    TimeUnit.NANOSECONDS.toMillis(releasedAt - closedAt), outcome,
                    TimeUnit.NANOSECONDS.toMillis(closeReturnedAt.get() - closedAt), millisSince(closedAt));
            if (!afterFirstStep) {
                // Sent before the lease ran out, it reached the store after another client had been granted the lock:
                // it cannot have removed its own lock, so it must not say it did.
                assertEquals(0, releasedEvents.get(), "the release of lock '" + name + "', held back until another"
                        + " client held it, reported that it removed the lock (RELEASED) instead of reporting the loss");
            }
            next.lease().close();
        } finally {
            proxy.releaseRequests();
        }
    }

    @Test
    void required_r9_18_anAcquireCutBetweenItsStepsLeavesNoLockBehindItsTtl() {
        List<String> addresses = requireHook(FaultRule.R9_18, this::proxiedAddresses);
        TcpProxies proxy = proxiesTo(addresses);
        String uri = requireHook(FaultRule.R9_18, () -> uriThrough(proxy.list()));
        String name = name();
        LockClient through = opened(() -> LockClient.open(uri));
        // Open the connections first, so that the exchange let through is the acquire's first step, not a handshake.
        through.lock(name + "-warm-up", longLease()).tryAcquire(timing.slack()).ifPresent(Lease::close);
        requireTrafficThrough(proxy, FaultRule.R9_18);
        Belief belief = null;
        try {
            proxy.holdRequestsAfterNextReply();
            long startedAt = System.nanoTime();
            CompletableFuture<Optional<Lease>> attempt = CompletableFuture.supplyAsync(
                    () -> lockOf(through, name, renewingShortLease()).tryAcquire(), OWN_THREAD);
            // Everything after the acquire's first answer stays back from now on, as if its client had died there.
            await("the acquire's first step answered").atMost(timing.slack())
                    .until(() -> attempt.isDone() || proxy.heldRequests() > 0);
            Optional<Lease> outcome;
            try {
                outcome = outcomeOf(attempt, timing.slack());
            } catch (LockException e) {
                outcome = Optional.empty(); // ambiguous: its clean-up is held back too
            }
            Lease lease = outcome == null ? null : outcome.orElse(null);
            if (lease != null) {
                belief = Belief.watch(lease);
            }
            Duration bound = timing.shortLease().plus(timing.slack());
            LockClient other = client();
            Optional<Lease> got = tryAcquireAcrossStoreErrors(other, name, bound);
            long grantedAt = System.nanoTime();
            assertTrue(got.isPresent(), "lock '" + name + "' was still taken " + millisSince(startedAt) + " ms after an"
                    + " acquire whose steps after its first answer never reached the store (its holder "
                    + (lease != null ? "got a lease of " + timing.shortLease() : "was told " + describe(outcome))
                    + "): the first step left a lock that outlives the TTL of " + timing.shortLease());
            NextHolder next = new NextHolder(got.get(), got.get().fencingToken(), got.get().holder(), grantedAt);
            System.out.printf("R9.18 %s: the acquire cut after its first answer gave %s; another client was granted"
                    + " the lock at +%d ms%n", getClass().getSimpleName(), lease != null ? "a lease" : describe(outcome),
                    TimeUnit.NANOSECONDS.toMillis(grantedAt - startedAt));
            proxy.releaseRequests();
            long releasedAt = System.nanoTime();
            assertNextHolderUntouched("acquire (its later steps)", name, next, releasedAt, timing.shortLease());
            if (belief != null) {
                belief.stop();
                assertTrue(belief.lastHeldCallStart() - grantedAt < 0, "the first client still believed it held lock '"
                        + name + "' " + TimeUnit.NANOSECONDS.toMillis(belief.lastHeldCallStart() - grantedAt)
                        + " ms after another client was granted it");
                if (declares(other, Capability.FENCING)) {
                    assertTrue(next.token() > lease.fencingToken(), "the next holder's token " + next.token()
                            + " is not above the first holder's " + lease.fencingToken());
                }
                lease.close();
            }
            next.lease().close();
        } finally {
            if (belief != null) {
                belief.stop();
            }
            proxy.releaseRequests();
        }
    }

    private static String describe(Optional<Lease> outcome) {
        return outcome == null ? "nothing within the slack" : outcome.isPresent() ? "it holds the lock" : "no lock";
    }

    /** The client that took the lock while a stale call was held back. */
    private record NextHolder(Lease lease, long token, io.locksmith.HolderIdentity holder, long grantedAt) {
    }

    /**
     * A client through the kit's proxies, opened again while opening fails with a store error, for up to the slack:
     * a first connection that misses a short command time-out on a loaded machine is not what these rules test.
     */
    private LockClient opened(java.util.function.Supplier<LockClient> open) {
        long deadline = System.nanoTime() + timing.slack().toNanos();
        while (true) {
            try {
                return closing(open.get());
            } catch (io.locksmith.LockStoreException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
            }
        }
    }

    private NextHolder takeOver(String name, Duration bound, String situation) {
        LockClient next = client();
        long start = System.nanoTime();
        Optional<Lease> got = tryAcquireAcrossStoreErrors(next, name, bound);
        long grantedAt = System.nanoTime();
        assertTrue(got.isPresent(), "nobody could take lock '" + name + "' within " + millisSince(start) + " ms "
                + situation);
        return new NextHolder(got.get(), got.get().fencingToken(), got.get().holder(), grantedAt);
    }

    /**
     * The stale {@code call} was let through at {@code releasedAt}: the next holder's lock must keep its token, its
     * holder and its lease, at once and until the stale call's TTL ({@code staleTtl}) has run out (a TTL the stale
     * call set would have freed the lock by then), and nobody else may take it.
     */
    private void assertNextHolderUntouched(String call, String name, NextHolder next, long releasedAt, Duration staleTtl) {
        LockClient observer = client();
        long watchUntil = releasedAt + staleTtl.plus(timing.expiryPrecision()).toNanos();
        do {
            Optional<io.locksmith.LockInfo> info = observer.inspect(name);
            long since = millisSince(releasedAt);
            String after = " " + since + " ms after the stale " + call + " of the previous holder reached the store";
            assertTrue(info.isPresent(), "the next holder's lock '" + name + "' (token " + next.token() + ") was gone"
                    + after + ": the stale " + call + " removed it or cut its lease");
            assertEquals(next.token(), info.get().fencingToken(), "the token of lock '" + name + "' changed" + after
                    + ": the stale " + call + " rewrote the next holder's lock");
            assertEquals(next.holder(), info.get().holder(), "the holder of lock '" + name + "' changed" + after);
            Optional<Duration> ttl = info.get().timeToLive();
            if (ttl.isPresent()) {
                Duration expected = timing.longLease().minusNanos(System.nanoTime() - next.grantedAt());
                assertTrue(ttl.get().compareTo(expected.minus(timing.slack())) >= 0, "the next holder's lease of lock '"
                        + name + "' was cut to " + ttl.get().toMillis() + " ms" + after + " (it asked for "
                        + timing.longLease() + " " + millisSince(next.grantedAt()) + " ms before): the stale " + call
                        + " set its own TTL on the next holder's lock");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // a store's expiry announces nothing: poll
        } while (System.nanoTime() - watchUntil < 0);
        assertTrue(lockOf(observer, name, longLease()).tryAcquire().isEmpty(), "another client took lock '" + name
                + "' from its holder after the stale " + call + " of the previous holder reached the store");
        assertTrue(next.lease().isHeld(), "the next holder of lock '" + name + "' lost it after the stale " + call
                + " of the previous holder reached the store");
    }

    /** Until when a holder believed it held its lease: {@code isHeld()} polled, dated by when each call began. */
    private static final class Belief {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong lastHeldCallStart = new AtomicLong();
        private final CompletableFuture<Void> watching;

        private Belief(Lease lease) {
            lastHeldCallStart.set(System.nanoTime());
            watching = CompletableFuture.runAsync(() -> {
                while (!stop.get()) {
                    long callStart = System.nanoTime();
                    if (lease.isHeld()) {
                        lastHeldCallStart.set(callStart);
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            }, OWN_THREAD);
        }

        static Belief watch(Lease lease) {
            return new Belief(lease);
        }

        void stop() {
            stop.set(true);
            watching.join();
        }

        long lastHeldCallStart() {
            return lastHeldCallStart.get();
        }
    }

    /**
     * A client of {@code uriThrough(...)} whose traffic does not pass the kit's proxies reaches the store some other
     * way: every proxy rule would then test nothing.
     */
    private static void requireTrafficThrough(TcpProxies proxy, FaultRule rule) {
        if (proxy.forwardedChunks() == 0) {
            throw new AssertionError("the client of uriThrough(...) used the store without a byte through the kit's"
                    + " proxies " + proxy.addressMap() + ": it reaches the store around them (a member list or announced"
                    + " addresses it learnt from the store?), so rule " + rule.id() + " cannot cut it. Keep it on the"
                    + " proxies (TcpProxies.addressMap(), docs/TCK.md)");
        }
    }

    private static void joinBoth(CompletableFuture<Void> first, CompletableFuture<Void> second) {
        Throwable failure = null;
        for (CompletableFuture<Void> future : List.of(first, second)) {
            try {
                future.join();
            } catch (java.util.concurrent.CompletionException e) {
                if (failure == null) {
                    failure = e.getCause();
                } else {
                    failure.addSuppressed(e.getCause());
                }
            }
        }
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
    }

    // ================================================================ a restarted store

    @Test
    void required_r9_19_aRestartedStoresHoldersAreToldAndItsTokensKeepIncreasing() {
        Assumptions.assumeFalse(shape().isReplicated(), () -> "Skipped because rule R9.19 ("
                + FaultRule.R9_19.title() + ") applies to a single-node deployment, and this one is " + shape()
                + ": the loss and return of one of its members is R9.6's");
        requireHook(FaultRule.R9_19, () -> {
            if (!overrides("restartStore")) {
                throw new UnsupportedOperationException("restartStore()");
            }
            return "";
        });
        String name = name();
        LockClient before = client();
        // Several holdings first: a counter that starts again from nothing after the restart falls below them.
        long highestBefore = Long.MIN_VALUE;
        for (int i = 0; i < 3; i++) {
            try (Lease lease = lockOf(before, name, longLease()).acquire(timing.slack())) {
                highestBefore = Math.max(highestBefore, lease.fencingToken());
            }
        }
        LockClient holderClient = client();
        Lease lease = lockOf(holderClient, name, renewingShortLease()).acquire(timing.slack());
        highestBefore = Math.max(highestBefore, lease.fencingToken());
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        lease.onLost(lost::set);

        long restartAt = System.nanoTime();
        try {
            restartStore();
        } catch (UnsupportedOperationException e) {
            throw missingHook(FaultRule.R9_19, e);
        }
        long servingAt = System.nanoTime();
        Duration bound = timing.shortLease().plus(timing.slack());
        // The store kept the lock (it restarted on its data) and the holder renews it again, or the holder is told.
        // A lease still held one TTL after the store served again was renewed by a request sent after that.
        long renewedOnRestartedStoreBy = servingAt + timing.shortLease().toNanos();
        await("the holder told of its loss, or renewing on the restarted store").atMost(bound)
                .until(() -> lost.get() != null || (System.nanoTime() - renewedOnRestartedStoreBy > 0 && lease.isHeld()));
        LockClient after = client();
        System.out.printf("R9.19 %s: restart took %d ms; the holder was %s%n", getClass().getSimpleName(),
                TimeUnit.NANOSECONDS.toMillis(servingAt - restartAt), lost.get() != null
                        ? "told at +" + millisSince(restartAt) + " ms (" + lost.get().reason() + ")"
                        : "renewing on the restarted store");
        if (lost.get() == null && shapeOfHoldings() != LockShape.MUTEX) {
            assertTrue(lockOf(after, name, longLease()).tryAcquire().isEmpty(), "another client took the "
                    + shapeOfHoldings().argument() + " '" + name + "' while its holder kept renewing it after the store"
                    + " restarted");
        } else if (lost.get() == null) {
            // A renewal after the restart was confirmed: the store must really have the holder's lock.
            Optional<io.locksmith.LockInfo> info = after.inspect(name);
            assertTrue(info.isPresent() && info.get().fencingToken() == lease.fencingToken(), "the holder of lock '"
                    + name + "' (token " + lease.fencingToken() + ") renewed it after the store restarted, but the store"
                    + " shows " + info.map(i -> "token " + i.fencingToken()).orElse("no lock"));
            assertTrue(lockOf(after, name, longLease()).tryAcquire().isEmpty(), "another client took lock '" + name
                    + "' while its holder kept renewing it after the store restarted");
        } else {
            assertFalse(lease.isHeld(), "the holder of lock '" + name + "' was told of its loss but still sees it held");
        }
        lease.close();
        Optional<Lease> next = tryAcquireAcrossStoreErrors(after, name, bound);
        assertTrue(next.isPresent(), "nobody could take lock '" + name + "' within " + bound + " of its holder's"
                + " closing the lease after the store restarted");
        long firstAfter = next.get().fencingToken();
        next.get().close();
        long secondAfter;
        try (Lease again = lockOf(after, name, longLease()).acquire(timing.slack())) {
            secondAfter = again.fencingToken();
        }
        if (declares(after, Capability.FENCING)) {
            assertTrue(firstAfter > highestBefore, "after the store restarted, lock '" + name + "' was granted with"
                    + " token " + firstAfter + ", not above the " + highestBefore + " granted before the restart: a"
                    + " stale holder's writes would be accepted again");
            assertTrue(secondAfter > firstAfter, "tokens after the restart do not increase: " + firstAfter + " then "
                    + secondAfter);
        }
    }

    // ================================================================ store nodes

    @Test
    void required_r9_6_exclusionHoldsWhenAStoreNodeIsKilled() {
        requireHook(FaultRule.R9_6, () -> {
            killStoreNodeSupported();
            return "";
        });
        List<LockClient> contenders = List.of(client(), client(), client());
        AtomicBoolean killed = new AtomicBoolean();
        AtomicLong killedInOperation = new AtomicLong(-1);
        FencedRegister register = new FencedRegister();
        WorkloadReport report;
        try {
            report = ContentionWorkload.on(contenders, name())
                    .shape(shapeOfHoldings())
                    .threadsPerClient(2)
                    .operations(40)
                    .holdFor(Duration.ofMillis(2))
                    .acquireWait(timing.slack().multipliedBy(5))
                    .maxDuration(timing.slack().multipliedBy(3))
                    .lockOptions(LockOptions.builder().leaseTime(timing.slack().multipliedBy(2)).build())
                    .register(register)
                    .inside((lease, client, operation) -> {
                        // Killed inside a holder's critical section: right after a grant, as the rule asks.
                        if (operation >= 10 && killed.compareAndSet(false, true)) {
                            killedInOperation.set(operation);
                            killStoreNode();
                        }
                    })
                    .run();
        } finally {
            if (killed.get()) {
                restartStoreNode();
            }
        }
        System.out.println(report);
        assertTrue(killed.get(), "the workload ended before the node was killed: " + report);
        assertEquals(0, report.overlaps(), () -> "two holders were inside at once after a store node was killed"
                + " in operation " + killedInOperation.get() + ": " + report);
        assertEquals(0, report.staleWritesAccepted(), report::toString);
        assertEquals(0, report.tokenMonotonicityViolations(), report::toString);
    }

    /**
     * Right after a failover a client may still talk to the dead primary until it learns of the promoted one:
     * its acquire then fails with a store error, which is correct. This rule is about what happens once it
     * reaches the new primary, so such errors are retried until {@code bound}.
     */
    private Optional<Lease> tryAcquireAcrossStoreErrors(LockClient client, String name, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            try {
                return lockOf(client, name, longLease()).tryAcquire(Duration.ofNanos(Math.max(0, left)));
            } catch (io.locksmith.LockStoreException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                // A pause between retries, not a synchronization: nothing announces that the client switched.
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
            }
        }
    }

    @Test
    void optional_r9_7_aDoubleGrantAfterAFailoverIsFenced() {
        requireHook(FaultRule.R9_7, () -> {
            failOverSupported();
            return "";
        });
        requireCapability(FaultRule.R9_7);
        String name = name();
        FencedRegister register = new FencedRegister();
        LockClient first = client();
        LockClient second = client();
        stopReplication();
        Lease lease = lockOf(first, name, longLease()).acquire(timing.slack());
        long firstToken = lease.fencingToken();
        try (FencedRegister.Hold hold = register.enter(firstToken, first.clientId())) {
            assertTrue(hold.write(1), "the first holder's write was refused");
        }
        failOver();

        Duration bound = timing.slack().multipliedBy(5);
        Optional<Lease> next = tryAcquireAcrossStoreErrors(second, name, bound);
        if (next.isEmpty()) {
            // The grant survived the failover: no double grant; the first holder is still the only one.
            assertTrue(lease.isHeld(), "after the failover nobody holds lock '" + name + "': the first holder lost it"
                    + " and the second could not take it within " + bound);
            lease.close();
            return;
        }
        long secondToken = next.get().fencingToken();
        try (FencedRegister.Hold hold = register.enter(secondToken, second.clientId())) {
            assertTrue(hold.write(2), "the second holder's write was refused");
        }
        boolean lateAccepted = register.write(firstToken, first.clientId(), 3);
        next.get().close();
        lease.close();
        assertTrue(secondToken > firstToken, "after a failover that lost the grant of token " + firstToken
                + ", the promoted replica granted lock '" + name + "' again with token " + secondToken);
        assertFalse(lateAccepted, "the fenced register accepted the first holder's write (token " + firstToken
                + ") after the failover's second holder wrote with token " + secondToken);
        assertEquals(0, register.staleWritesAccepted(), register::toString);
    }

    // ================================================================ minority partitions

    @Test
    void required_r9_9_aHolderOnAMinorityMemberStopsBeforeTheMajorityGrants() {
        String minorityUri = requireHook(FaultRule.R9_9, this::minorityMemberUri);
        String majorityUri = requireHook(FaultRule.R9_9, this::majorityUri);
        requireHook(FaultRule.R9_9, () -> {
            isolateSupported();
            return "";
        });
        holderOnAMemberThatStopsServing("R9.9", "isolated", minorityUri, majorityUri, this::isolateMinorityMember,
                this::healMinorityMember);
    }

    // ================================================================ a frozen leader or primary

    @Test
    void required_r9_10_aHolderOnAFrozenLeaderStopsBeforeAnotherIsGranted() {
        String frozenUri = requireHook(FaultRule.R9_10, this::minorityMemberUri);
        String othersUri = requireHook(FaultRule.R9_10, this::majorityUri);
        requireHook(FaultRule.R9_10, () -> {
            if (!overrides("freezeMember")) {
                throw new UnsupportedOperationException("freezeMember()");
            }
            return "";
        });
        holderOnAMemberThatStopsServing("R9.10", "frozen", frozenUri, othersUri, this::freezeMember, this::thawMember);
    }

    /**
     * Rules R9.9 and R9.10: a holder on one member writes through a fenced register while that member is cut from
     * its peers or frozen ({@code stopServing}); the others must grant the lock within {@link #minorityPartitionBound()},
     * and the holder must have stopped believing it holds it, and been told, before that grant. After {@code resumeServing}
     * the lock must be available to the holder's client again.
     */
    private void holderOnAMemberThatStopsServing(String rule, String state, String minorityUri, String majorityUri,
                                                 Runnable stopServing, Runnable resumeServing) {
        String name = name();
        Duration bound = minorityPartitionBound();
        FencedRegister register = new FencedRegister();
        LockClient holderClient = closing(LockClient.open(minorityUri));
        LockClient majority = closing(LockClient.open(majorityUri));
        // The client's own default options (its URI may set the lease time), as an application would take it.
        Lease lease = lockOf(holderClient, name, holderClient.lock(name).options()).acquire(bound);
        long holderToken = lease.fencingToken();
        AtomicLong lostAt = new AtomicLong(Long.MAX_VALUE);
        lease.onLost(event -> lostAt.compareAndSet(Long.MAX_VALUE, System.nanoTime()));

        // The holder writes for as long as it believes it holds the lock, as an application would; a belief is
        // dated by when the isHeld() call began, so a descheduled writer only makes it look later.
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong lastHeldCallStart = new AtomicLong();
        AtomicLong holderWritesAccepted = new AtomicLong();
        CompletableFuture<Void> holderWrites = CompletableFuture.runAsync(() -> {
            long value = 0;
            while (!stop.get()) {
                long callStart = System.nanoTime();
                if (lease.isHeld()) {
                    lastHeldCallStart.set(callStart);
                    if (register.write(holderToken, holderClient.clientId(), ++value)) {
                        holderWritesAccepted.incrementAndGet();
                    }
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
        }, OWN_THREAD);

        await("the holder's first write").atMost(timing.slack()).until(() -> holderWritesAccepted.get() > 0);
        // A holder that lost the lock before the cut would pass every check below without proving anything.
        assertTrue(lease.isHeld(), "the holder lost lock '" + name + "' before its member was " + state);
        // Counted from before the call: the cut may take effect at any moment while the hook sets it up.
        long cutAt = System.nanoTime();
        stopServing.run();
        long isolatedAt = System.nanoTime();
        boolean healed = false;
        try {
            Optional<Lease> granted;
            try {
                granted = tryAcquireAcrossStoreErrors(majority, name, bound);
            } catch (io.locksmith.LockStoreException e) {
                granted = Optional.empty();
            }
            long grantedAt = granted.isPresent() ? System.nanoTime() : Long.MAX_VALUE;
            // A majority that never grants would make every check below pass: the rule is about the moment it does.
            assertTrue(granted.isPresent(), "the majority side (" + majorityUri + ") did not grant lock '" + name
                    + "' within " + bound + " (minorityPartitionBound()) after the member of " + minorityUri + " was " + state);
            long majorityToken = granted.map(Lease::fencingToken).orElse(-1L);
            try (FencedRegister.Hold hold = register.enter(majorityToken, majority.clientId())) {
                assertTrue(hold.write(-1), "the majority holder's write was refused");
            }
            boolean told;
            try {
                await("the minority holder's onLost callback").atMost(bound.plus(timing.slack()))
                        .until(() -> lostAt.get() != Long.MAX_VALUE);
                told = true;
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                told = false; // reported below, after the more telling check of what the holder believed
            }
            stop.set(true);
            holderWrites.join();
            // For the record (docs quote these): how the store behaved, from the cut.
            System.out.printf(rule + " %s: from the start of the fault (set up in %d ms), the minority holder was"
                            + " %s, last believed it held at +%d ms; the majority granted at +%d ms; %s%n",
                    getClass().getSimpleName(), TimeUnit.NANOSECONDS.toMillis(isolatedAt - cutAt),
                    told ? "told at +" + TimeUnit.NANOSECONDS.toMillis(lostAt.get() - cutAt) + " ms" : "never told",
                    TimeUnit.NANOSECONDS.toMillis(lastHeldCallStart.get() - cutAt),
                    TimeUnit.NANOSECONDS.toMillis(grantedAt - cutAt), register);
            if (granted.isPresent()) {
                assertTrue(lastHeldCallStart.get() - grantedAt < 0, "the holder on the " + state + " member still believed"
                        + " it held lock '" + name + "' " + TimeUnit.NANOSECONDS.toMillis(lastHeldCallStart.get() - grantedAt)
                        + " ms after the majority granted it to another client ("
                        + TimeUnit.NANOSECONDS.toMillis(grantedAt - cutAt) + " ms after the cut)");
                assertTrue(told, "the holder on the " + state + " member was never told it lost lock '" + name + "' (waited "
                        + bound.plus(timing.slack()) + ")");
                assertTrue(lostAt.get() - grantedAt < 0, "the holder on the " + state + " member was told of its loss "
                        + TimeUnit.NANOSECONDS.toMillis(lostAt.get() - grantedAt) + " ms after the majority granted"
                        + " lock '" + name + "' to another client");
                if (declares(majority, Capability.FENCING)) {
                    assertTrue(majorityToken > holderToken, "the majority's token " + majorityToken
                            + " is not above the " + state + " holder's " + holderToken);
                }
                granted.get().close();
            }
            assertEquals(0, register.staleWritesAccepted(), register::toString);

            resumeServing.run();
            healed = true;
            // As an application does with a lease it was told it lost: close it (an owner-checked release).
            lease.close();
            // Available again on the healed side: what was partitioned serves the lock once more.
            Optional<Lease> again = tryAcquireAcrossStoreErrors(holderClient, name, bound);
            assertTrue(again.isPresent(), "after the member was no longer " + state + ", the client of that member"
                    + " could not take lock '" + name + "' within " + bound);
            again.get().close();
        } finally {
            stop.set(true);
            if (!healed) {
                resumeServing.run();
            }
        }
    }

    private void isolateSupported() {
        if (!overrides("isolateMinorityMember")) {
            throw new UnsupportedOperationException("isolateMinorityMember()");
        }
    }

    // ================================================================ helpers

    /** The acquire's result, or null if it is still running after {@code bound}; its store failure is thrown. */
    private static Optional<Lease> outcomeOf(CompletableFuture<Optional<Lease>> attempt, Duration bound) {
        try {
            return attempt.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return null;
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof LockException failure) {
                throw failure;
            }
            throw new AssertionError("the acquire failed with " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private void killStoreNodeSupported() {
        if (!overrides("killStoreNode")) {
            throw new UnsupportedOperationException("killStoreNode()");
        }
    }

    private void failOverSupported() {
        if (!overrides("failOver")) {
            throw new UnsupportedOperationException("failOver()");
        }
    }

    /** Whether the kit subclass overrides the no-argument hook {@code method}: calling it would inject the fault. */
    private boolean overrides(String method) {
        for (Class<?> type = getClass(); type != LockFaultTck.class && type != null; type = type.getSuperclass()) {
            try {
                type.getDeclaredMethod(method);
                return true;
            } catch (NoSuchMethodException e) {
                // look further up
            }
        }
        return false;
    }

    private <T> T requireHook(FaultRule rule, java.util.function.Supplier<T> hook) {
        LockShape lockShape = shapeOfHoldings();
        if (lockShape != LockShape.MUTEX && !RULES_OF_EVERY_SHAPE.contains(rule)) {
            Assumptions.abort("Skipped because the kit subclass " + getClass().getSimpleName() + " takes its holdings"
                    + " through the " + lockShape.argument() + " shape, and rule " + rule.id() + " (" + rule.title()
                    + ") is about one store lock's own steps: NOT RUN HERE on purpose, the mutex kit class of the same"
                    + " deployment runs it on the locks the primitive is made of");
        }
        String knownViolation = knownViolations().get(rule);
        if (knownViolation != null) {
            Assumptions.abort("Skipped because the kit subclass " + getClass().getSimpleName() + " declares " + rule.id()
                    + " (" + rule.title() + ") a KNOWN VIOLATION on this deployment, not yet fixed: " + knownViolation);
        }
        String notRunHere = rulesNotRunHere().get(rule);
        if (notRunHere != null) {
            Assumptions.abort("Skipped because the kit subclass " + getClass().getSimpleName() + " declares " + rule.id()
                    + " (" + rule.title() + ") NOT RUN HERE on purpose: " + notRunHere);
        }
        try {
            return Objects.requireNonNull(hook.get(), rule.hook() + " returned null");
        } catch (UnsupportedOperationException e) {
            throw missingHook(rule, e);
        }
    }

    /**
     * A hook {@code rule} needs is not implemented: fails the rule if the deployment shape requires it (saying how to
     * give the hook), else skips it naming the hook.
     */
    private RuntimeException missingHook(FaultRule rule, UnsupportedOperationException missing) {
        DeploymentShape shape = shape();
        if (shape.requires(rule)) {
            throw new MissingHookError("Rule " + rule.id() + " (" + rule.title() + ") NOT RUN, and it is required on"
                    + " a deployment of this shape (" + shape + "): the kit subclass " + getClass().getSimpleName()
                    + " does not implement " + rule.hook() + ". To give it: " + rule.howTo() + ". If the rule runs"
                    + " in another kit class of this deployment, or does not apply to it, declare that in"
                    + " rulesNotRunHere() with the reason (docs/TCK.md, the fault kit's hooks).");
        }
        Assumptions.abort("Skipped because the kit subclass " + getClass().getSimpleName() + " does not implement "
                + rule.hook() + ": rule " + rule.id() + " (" + rule.title() + ") needs it");
        return missing;
    }

    private DeploymentShape shape() {
        return Objects.requireNonNull(deploymentShape(), "deploymentShape() returned null");
    }

    private void requireCapability(FaultRule rule) {
        Capability capability = rule.capability().orElseThrow();
        LockClient probe = client();
        Assumptions.assumeTrue(declares(probe, capability), () -> "Skipped because the provider does NOT declare "
                + capability + ": rule " + rule.id() + " (" + rule.title() + ") applies only to stores that do");
    }

    private static boolean declares(LockClient client, Capability capability) {
        return client.capabilities().contains(capability);
    }

    private VictimProcess victim(String uri, String name, LockOptions options) {
        return closing(VictimProcess.start(uri, name, options, shapeOfHoldings()));
    }

    private TcpProxies proxiesTo(List<String> addresses) {
        return closing(TcpProxies.start(addresses));
    }

    private <T extends AutoCloseable> T closing(T resource) {
        resources.add(resource);
        return resource;
    }

    private LockClient client() {
        return closing(Objects.requireNonNull(newClient(), "newClient() returned null"));
    }

    private String name() {
        return "fault-" + UUID.randomUUID();
    }

    private LockOptions longLease() {
        return LockOptions.builder().leaseTime(timing.longLease()).maxHold(timing.longLease().multipliedBy(10)).build();
    }

    private LockOptions fixedShortLease() {
        return LockOptions.builder().leaseTime(timing.shortLease()).fixedLease().build();
    }

    private LockOptions renewingShortLease() {
        return LockOptions.builder().leaseTime(timing.shortLease()).maxHold(timing.longLease()).build();
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
