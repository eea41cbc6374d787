package io.locksmith.zookeeper;

import io.locksmith.LockException;
import io.locksmith.LockInfo;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.CallDeadline;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;
import io.locksmith.spi.Registry;
import io.locksmith.spi.RenewRequest;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@code zookeeper://} provider: the classic ZooKeeper lock recipe mapped onto the SPI.
 *
 * <p>Each attempt puts an ephemeral sequential node under the lock's container node; the lowest sequence
 * holds. A waiting owner ({@link AcquireRequest#willWait()}) keeps its node between attempts, so it keeps
 * its place in the queue, and watches only its predecessor: a release wakes one queue position, not every
 * waiter (no herd). A one-shot attempt that is not first deletes its node at once.
 *
 * <p>A lock counts as held only while the session is certainly alive at the ensemble's leader
 * ({@link SessionProof}): a member cut from the quorum keeps answering reads and pings from its stale state, so
 * renewals go through the leader ({@code sync}, then the read), and a steady {@code sync} keeps the proof fresh;
 * when the proof runs out, every lock of the session is reported lost, before the leader can expire the session
 * and grant the lock to another client.
 *
 * <p>The fencing token is the holder node's creation zxid ({@code czxid}): the ZooKeeper transaction id is
 * global and only grows, so a later holder (whose node was necessarily created later, since the queue is
 * in creation order) always has a larger one, even when the lock's container was deleted and recreated in
 * between and the sequence numbers restarted.
 */
final class ZooKeeperLockProvider implements LockProvider {

    /** Node reads per multi request: about 150 bytes of reply each, far below the 1 MB packet limit. */
    static final int MAX_READS_PER_MULTI = 500;

    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLockProvider.class);
    /** A node that vanishes under us again and again (an operator deleting in a loop) is a store failure. */
    private static final int MAX_RECREATIONS = 5;

    private final CuratorFramework curator;
    private final Requests requests;
    private final ZooKeeperSettings settings;
    private final LockPaths paths;
    private final HeldNodes held;
    private final NodeReaper reaper;
    private final QueueWatches watches;
    private final LockQueue lockQueue;
    private final ScheduledThreadPoolExecutor timers;
    private final ZooKeeperRegistry registry;
    /** Owner id to the node it keeps while it waits, between attempts. */
    private final Map<String, QueuedNode> waitingNodes = new ConcurrentHashMap<>();

    /**
     * A queue node this provider created, with the {@link Stat} its create answered: its czxid (the fencing token)
     * and its session (ephemeral owner) never change while it exists, so they need no second read.
     */
    private record QueuedNode(String path, Stat stat) {
    }
    private final SessionProof proof = new SessionProof();
    /** When the connection was last seen suspended or lost (nanoTime): a new session was asked for after it. */
    private volatile long disconnectedAt;
    private ScheduledFuture<?> deadlineCheck;
    private final boolean accessControlled;

    /**
     * @param connectingSince  a time (nanoTime) before the client asked for its first session
     * @param accessControlled whether the locks under the base path are this digest identity's alone (SPEC R2.6)
     */
    ZooKeeperLockProvider(CuratorFramework curator, ZooKeeperSettings settings, ProviderContext context,
                          long connectingSince, boolean accessControlled) {
        this.accessControlled = accessControlled;
        this.curator = curator;
        this.settings = settings;
        this.paths = new LockPaths(settings.basePath());
        this.timers = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "locksmith-zookeeper-session");
            thread.setDaemon(true);
            return thread;
        });
        this.timers.setRemoveOnCancelPolicy(true);
        this.requests = new Requests(curator, settings.connectionTimeout(), settings.describe(), settings.acl());
        this.reaper = new NodeReaper(curator, requests, timers);
        this.held = new HeldNodes(context.lossListener(), reaper::deleteInBackground);
        this.watches = new QueueWatches(paths, held);
        this.lockQueue = new LockQueue(requests, paths, reaper);
        this.registry = new ZooKeeperRegistry(curator, settings.basePath(), settings.describe(),
                this::currentSessionIdOrZero);
        this.disconnectedAt = connectingSince;
        curator.getConnectionStateListenable().addListener((client, state) -> connectionChanged(state));
        sessionMayHaveStarted();
        long heartbeat = Math.max(TimeUnit.MILLISECONDS.toNanos(10), negotiatedTimeoutNanos() / 6);
        timers.scheduleWithFixedDelay(this::proveSession, heartbeat, heartbeat, TimeUnit.NANOSECONDS);
    }

    // ---------------------------------------------------------------- acquire

    @Override
    public Optional<Grant> tryAcquire(AcquireRequest request) {
        return requests.within(() -> tryAcquireOnce(request));
    }

    private Optional<Grant> tryAcquireOnce(AcquireRequest request) {
        String name = request.name();
        Owner owner = request.owner();
        String lockPath = paths.lockPath(name);
        QueuedNode waiting = waitingNodes.remove(owner.id());
        String node = waiting == null ? null : waiting.path();
        Stat nodeStat = waiting == null ? null : waiting.stat();
        boolean keepNode = false;
        boolean failed = true;
        boolean failedByInterrupt = false;
        try {
            if (node != null && nodeStat.getEphemeralOwner() != sessionId()) {
                // Created in a session that has ended: it is not ours to hold, whatever it says. (A node deleted
                // behind our back in this session is missing from the queue read below.)
                reaper.deleteIfExists(node);
                node = null;
            }
            for (int recreations = 0; recreations <= MAX_RECREATIONS; ) {
                List<String> children;
                if (node == null) {
                    nodeStat = new Stat();
                    LockQueue.Created created = lockQueue.createAndRead(name, owner, nodeStat);
                    node = created.node();
                    children = created.children();
                } else {
                    children = lockQueue.children(lockPath);
                }
                List<String> queue = lockQueue.withoutOrphansOf(owner, node, LockPaths.queue(children));
                int place = queue.indexOf(LockPaths.nodeName(node));
                if (place < 0) {
                    // Deleted behind our back (session expiry, an operator): queue again at the end.
                    node = null;
                    recreations++;
                    continue;
                }
                if (place == 0) {
                    // The node's session comes from its create; the session is read after the queue read that
                    // listed the node, which went over the current connection: a node of an ended session (Curator
                    // replaced it while we were blocked) cannot pass for ours. No exists round trip: it cost a
                    // quarter of an uncontended acquire + release (docs/PERFORMANCE.md).
                    Stat stat = nodeStat;
                    long session = sessionId();
                    if (stat.getEphemeralOwner() != session) {
                        reaper.deleteIfExists(node);
                        node = null;
                        recreations++;
                        continue;
                    }
                    if (settings.onSuspended() == ZooKeeperSettings.OnSuspended.LOSE
                            && !curator.getZookeeperClient().isConnected()) {
                        // The suspension may already have been handled, before this grant existed: it would
                        // then be held with no certainty and nobody told.
                        throw new LockStoreException(name, describe() + ": the connection was suspended while"
                                + " the lock was being granted", null);
                    }
                    if (!awaitSessionProof(session)) {
                        throw new LockStoreException(name, describe() + ": no answer through the ZooKeeper leader"
                                + " proved session 0x" + Long.toHexString(session) + " alive within "
                                + settings.connectionTimeout().toMillis() + " ms (connectionTimeout): the member this"
                                + " client talks to may be cut off from the quorum", null);
                    }
                    Grant grant = new Grant(name, owner, stat.getCzxid(), request.ttl(), node);
                    held.add(grant, session);
                    watchHeldNode(node);
                    keepNode = true;
                    failed = false;
                    return Optional.of(grant);
                }
                LOG.trace("{}: {} is at place {} of {}", name, owner.id(), place, queue.size());
                if (!request.willWait()) {
                    failed = false;
                    return Optional.empty();
                }
                String predecessor = lockPath + "/" + queue.get(place - 1);
                if (requests.retrying(() -> requests.exists(predecessor, watches.predecessorWatcher()),
                        "acquire", name) == null) {
                    continue; // it went between the two reads: look again
                }
                // An attempt that outlives its cancelled wait keeps its node here too: the shared client cancels it
                // again once the attempt has ended.
                waitingNodes.put(owner.id(), new QueuedNode(node, nodeStat));
                keepNode = true;
                failed = false;
                return Optional.empty();
            }
            throw new LockStoreException(name, describe() + ": the lock node of " + owner.id()
                    + " was deleted " + MAX_RECREATIONS + " times during one attempt", null);
        } catch (Exception e) {
            failedByInterrupt = e instanceof InterruptedException;
            throw storeFailure(name, "acquire", e);
        } finally {
            if (!keepNode && node != null) {
                if (failed && !failedByInterrupt) {
                    reaper.deleteInBackground(node); // the connection is likely down: do not block on it again
                } else {
                    reaper.deleteNow(node); // before returning, so nobody sees a waiter that has gone
                }
            }
        }
    }

    /**
     * Sets the watch that reports a held node deleted behind the holder's back, without waiting for it: the exists
     * goes out after the grant, and the session's requests are served in order, so the watch is in place before
     * any later request of this client (its release among them). A node already gone when the exists is served is
     * a loss reported at once; an exists that fails leaves the check to the next renewal, which sets the watch
     * again.
     */
    private void watchHeldNode(String node) throws Exception {
        requests.exists(node, watches.heldNodeWatcher()).whenComplete((stat, failure) -> {
            if (failure == null && stat == null) {
                held.lose(node, "the lock node " + node + " was deleted behind the holder's back (its session"
                        + " expired, or an operator removed it)", null);
            } else if (failure != null) {
                LOG.debug("setting the watch on held node {} failed ({}); the next renewal checks it", node,
                        failure.toString());
            }
        });
    }

    // ---------------------------------------------------------------- renew and release

    @Override
    public boolean renew(Grant grant, Duration ttl) {
        return requests.within(() -> renewOnce(grant));
    }

    private boolean renewOnce(Grant grant) {
        HeldNodes.HeldNode node = held.get(path(grant));
        if (node == null) {
            return false;
        }
        try {
            // Through the leader first: a member cut from the quorum answers reads from its stale state.
            syncWithLeader(node.path());
            // Re-arming the watch costs nothing (one registration per watcher and node).
            Stat stat = requests.retrying(() -> requests.exists(node.path(), watches.heldNodeWatcher()), "renew",
                    grant.name());
            return confirm(node, stat, sessionId());
        } catch (Exception e) {
            throw storeFailure(grant.name(), "renew", e);
        }
    }

    /**
     * Renews many locks with one {@code sync} and one read request ({@code multiRead} of the held nodes, ZooKeeper
     * 3.6+): the same checks as {@link #renew}, for a whole client's locks in two round trips, without a write.
     */
    @Override
    public List<Boolean> renewAll(List<RenewRequest> renewals) {
        if (renewals.size() < 2) {
            return LockProvider.super.renewAll(renewals);
        }
        return this.requests.within(() -> renewAllOnce(renewals));
    }

    private List<Boolean> renewAllOnce(List<RenewRequest> requests) {
        List<HeldNodes.HeldNode> nodes = new ArrayList<>(requests.size());
        List<Op> reads = new ArrayList<>(requests.size());
        for (RenewRequest request : requests) {
            HeldNodes.HeldNode node = held.get(path(request.grant()));
            nodes.add(node);
            if (node != null) {
                reads.add(Op.getData(node.path()));
            }
        }
        List<OpResult> results;
        long session;
        try {
            results = new ArrayList<>(reads.size());
            if (!reads.isEmpty()) {
                syncWithLeader("/");
            }
            // One reply must stay under ZooKeeper's 1 MB packet limit (jute.maxbuffer): each read returns the
            // node's data and stat, so 10,000 locks in one multi overflow it and drop the connection.
            for (int from = 0; from < reads.size(); from += MAX_READS_PER_MULTI) {
                results.addAll(multiRead(reads.subList(from, Math.min(reads.size(), from + MAX_READS_PER_MULTI))));
            }
            session = sessionId();
        } catch (Exception e) {
            throw storeFailure(null, "renew " + requests.size() + " locks", e);
        }
        List<Boolean> renewed = new ArrayList<>(requests.size());
        int next = 0;
        for (int i = 0; i < requests.size(); i++) {
            HeldNodes.HeldNode node = nodes.get(i);
            if (node == null) {
                renewed.add(false);
                continue;
            }
            OpResult result = results.get(next++);
            Stat stat = result instanceof OpResult.GetDataResult data ? data.getStat() : null;
            renewed.add(confirm(node, stat, session));
        }
        return renewed;
    }

    private List<OpResult> multiRead(List<Op> reads) throws Exception {
        // A missing node's result says so; the others are still good.
        return requests.retrying(() -> requests.multiRead(reads), "renew", null);
    }

    /** The renewal check: the node exists, in the session that created it, which is still ours. */
    private boolean confirm(HeldNodes.HeldNode node, Stat stat, long currentSession) {
        if (stat == null || stat.getEphemeralOwner() != node.sessionId()
                || stat.getCzxid() != node.grant().fencingToken() || currentSession != node.sessionId()) {
            held.remove(node.path());
            reaper.deleteInBackground(node.path());
            return false;
        }
        return true;
    }

    @Override
    public boolean release(Grant grant) {
        return requests.within(() -> releaseOnce(grant));
    }

    private boolean releaseOnce(Grant grant) {
        String path = path(grant);
        if (path == null) {
            releaseAmbiguous(grant.name(), grant.owner());
            return false;
        }
        HeldNodes.HeldNode node = held.remove(path);
        if (node == null) {
            // Already reported lost, or released by an earlier attempt whose answer was lost: make sure it goes,
            // without making the caller wait on a connection that may be down.
            reaper.deleteInBackground(path);
            return false;
        }
        try {
            // The path holds the owner id, and owner ids are never reused: deleting it cannot hit another
            // holder's node. Leases are often closed in a finally block of an interrupted thread: release anyway
            // (the wait rides out the interrupt).
            boolean resent = false;
            while (true) {
                try {
                    requests.await(requests.delete(path), "release", grant.name());
                    break;
                } catch (KeeperException.NoNodeException e) {
                    if (!resent) {
                        return false;
                    }
                    break; // the first delete, whose answer was lost with the connection, may have done it
                } catch (KeeperException e) {
                    if (!requests.pauseBeforeRetry(e)) {
                        throw e;
                    }
                    resent = true;
                }
            }
            return sessionId() == node.sessionId();
        } catch (Exception e) {
            reaper.deleteInBackground(path);
            throw storeFailure(grant.name(), "release", e);
        }
    }

    @Override
    public void releaseAmbiguous(String name, Owner owner) {
        requests.within(() -> {
            releaseAmbiguousOnce(name, owner);
            return null;
        });
    }

    private void releaseAmbiguousOnce(String name, Owner owner) {
        // An attempt of this owner may still be under way (cut short by the caller's bound, it goes on in the
        // background) and may queue a node after the clean-up below: the shared client cleans up again when it ends.
        QueuedNode waiting = waitingNodes.remove(owner.id());
        if (waiting != null) {
            reaper.deleteInBackground(waiting.path());
        }
        for (String path : held.pathsOf(owner.id())) {
            held.remove(path);
            reaper.deleteInBackground(path);
        }
        String lockPath = paths.lockPath(name);
        String prefix = LockPaths.ownerPrefix(owner.id());
        try {
            // Often called after an interrupted acquire, whose create may have reached the server all the same.
            List<String> children = lockQueue.children(lockPath);
            for (String child : children) {
                if (child.startsWith(prefix)) {
                    reaper.deleteNow(lockPath + "/" + child);
                }
            }
        } catch (Exception e) {
            throw storeFailure(name, "clean up after an ambiguous acquire", e);
        }
    }

    @Override
    public void cancel(String name, Owner owner) {
        QueuedNode node = waitingNodes.remove(owner.id());
        if (node != null) {
            requests.within(() -> {
                reaper.deleteNow(node.path());
                return null;
            });
        }
    }

    // ---------------------------------------------------------------- inspect, notify

    @Override
    public Optional<LockInfo> inspect(String name) {
        return requests.within(() -> inspectOnce(name));
    }

    private Optional<LockInfo> inspectOnce(String name) {
        try {
            // A member answers reads from its own copy, which may lag the leader: without the sync, an ensemble
            // member could show a lock another client was granted a moment ago as free (R8.3, R8.5).
            syncWithLeader("/");
            return lockQueue.inspect(name);
        } catch (Exception e) {
            throw storeFailure(name, "inspect", e);
        }
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return requests.within(() -> listOnce(prefix));
    }

    private List<LockInfo> listOnce(String prefix) {
        List<LockInfo> listed = new ArrayList<>();
        try {
            for (String name : lockQueue.namesStartingWith(prefix)) {
                lockQueue.inspect(name).ifPresent(listed::add);
            }
        } catch (Exception e) {
            throw storeFailure(null, "list", e);
        }
        return listed;
    }

    @Override
    public AutoCloseable subscribe(String name, Runnable onChange) {
        return watches.subscribe(name, onChange);
    }

    // ---------------------------------------------------------------- session

    /**
     * Maps connection states onto leases. SUSPENDED means no server has answered for a while: the session
     * may already have expired and another client may hold the lock, so by default every lock is reported
     * lost at once. LOST means the session is gone (or Curator gave up on it after the session timeout).
     * RECONNECTED with another session id means the old session, and every node of it, is gone.
     */
    private void connectionChanged(ConnectionState state) {
        LOG.debug("{}: connection {}, session 0x{}, {} lock(s) held", describe(), state,
                Long.toHexString(currentSessionIdOrZero()), held.size());
        if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
            disconnectedAt = System.nanoTime();
        }
        proof.connectionChanged();
        if (state.isConnected()) {
            sessionMayHaveStarted();
        }
        switch (state) {
            case SUSPENDED -> {
                if (settings.onSuspended() == ZooKeeperSettings.OnSuspended.LOSE) {
                    held.loseAll(session -> true, "the connection to ZooKeeper was suspended: the session may"
                            + " have expired, so the lock is no longer certainly held", null);
                }
            }
            case LOST -> {
                held.loseAll(session -> true, "the ZooKeeper session was lost (expired, or not reconnected"
                        + " within the session timeout)", null);
                watches.notifyAllSubscribers();
            }
            case RECONNECTED -> {
                reaper.retryPending();
                long current = currentSessionIdOrZero();
                held.loseAll(session -> session != current, "reconnected to ZooKeeper with a new session: the old"
                        + " session and its lock nodes are gone", null);
                watches.notifyAllSubscribers();
            }
            default -> {
            }
        }
    }

    // ---------------------------------------------------------------- proof through the leader

    /** Registers a session the proof does not know yet: it was asked for after the last disconnection. */
    private void sessionMayHaveStarted() {
        long session = currentSessionIdOrZero();
        if (session != 0 && session != proof.sessionId()) {
            proof.started(session, disconnectedAt, negotiatedTimeoutNanos());
            scheduleDeadlineCheck();
        }
    }

    private long negotiatedTimeoutNanos() {
        try {
            int negotiated = curator.getZookeeperClient().getZooKeeper().getSessionTimeout();
            if (negotiated > 0) {
                return TimeUnit.MILLISECONDS.toNanos(negotiated);
            }
        } catch (Exception e) {
            // not connected yet: what was asked for
        }
        return settings.sessionTimeout().toNanos();
    }

    /**
     * Sends a {@code sync} (the member forwards it to the leader and answers once the leader did) and waits for
     * its answer, at most one connection timeout: a member cut from the quorum never answers it, and the holder
     * must learn that in time, not hang. Counts the answer as a contact for {@link SessionProof}.
     */
    private void syncWithLeader(String path) throws Exception {
        ZooKeeper zk = curator.getZookeeperClient().getZooKeeper();
        long session = zk.getSessionId();
        int epoch = proof.epoch();
        CompletableFuture<Integer> answer = new CompletableFuture<>();
        long sentAt = System.nanoTime();
        zk.sync(path, (rc, p, ctx) -> answer.complete(rc), null);
        int rc;
        try {
            rc = requests.await(answer, "sync", null);
        } catch (LockStoreException e) {
            throw new LockStoreException(null, describe() + ": no answer through the ZooKeeper leader within "
                    + settings.connectionTimeout().toMillis() + " ms (connectionTimeout): the member this client"
                    + " talks to may be cut off from the quorum", e);
        }
        if (rc != KeeperException.Code.OK.intValue()) {
            throw KeeperException.create(KeeperException.Code.get(rc), path);
        }
        contactConfirmed(session, epoch, sentAt, zk.getSessionTimeout());
    }

    /**
     * Waits, at most one connection timeout, until the session is proven alive at the leader, which a grant needs.
     * Normally it already is. Right after a session began (a slow connection on a loaded machine, a new session
     * after an expiry) the proof may not have caught up yet: it needs two answers through the leader a third of
     * the session timeout apart, so this sends a {@code sync} every twelfth of it until then.
     *
     * @return false if the proof did not come in time
     */
    private boolean awaitSessionProof(long session) throws Exception {
        if (proof.deadline(session) - System.nanoTime() > 0) {
            return true; // the usual case
        }
        long giveUpAt = System.nanoTime() + CallDeadline.remainingNanos(settings.connectionTimeout().toNanos());
        long pause = Math.max(TimeUnit.MILLISECONDS.toNanos(10), negotiatedTimeoutNanos() / 12);
        // Within the call's deadline an interrupt does not end the wait: the caller sees it when the call returns.
        boolean interrupted = false;
        try {
            while (proof.deadline(session) - System.nanoTime() <= 0) {
                if (System.nanoTime() - giveUpAt >= 0) {
                    return false;
                }
                syncWithLeader("/");
                if (proof.deadline(session) - System.nanoTime() <= 0) {
                    interrupted |= Thread.interrupted();
                    // the next contact must come later to count
                    LockSupport.parkNanos(Math.min(pause, Math.max(0, giveUpAt - System.nanoTime())));
                    interrupted |= Thread.interrupted();
                }
            }
            return true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The steady proof: a {@code sync} every sixth of the session timeout, without waiting for it. A lock then
     * stays provably held for at least half a session timeout after each answer, and the holder of a fixed lease
     * (never renewed) is protected as well as a renewing one.
     */
    private void proveSession() {
        try {
            ZooKeeper zk = curator.getZookeeperClient().getZooKeeper();
            long session = zk.getSessionId();
            if (session == 0 || !curator.getZookeeperClient().isConnected()) {
                return;
            }
            int epoch = proof.epoch();
            long sentAt = System.nanoTime();
            zk.sync("/", (rc, path, ctx) -> {
                if (rc == KeeperException.Code.OK.intValue()) {
                    contactConfirmed(session, epoch, sentAt, zk.getSessionTimeout());
                }
            }, null);
        } catch (Exception e) {
            LOG.debug("{}: could not send the session proof", describe(), e);
        }
    }

    private void contactConfirmed(long session, int epoch, long sentAt, int negotiatedMillis) {
        if (proof.confirmed(session, epoch, sentAt, TimeUnit.MILLISECONDS.toNanos(negotiatedMillis))) {
            scheduleDeadlineCheck();
        }
    }

    /** Arranges for the locks of the session to be reported lost the moment its proof runs out. */
    private void scheduleDeadlineCheck() {
        long session = proof.sessionId();
        long delay = proof.deadline(session) - System.nanoTime();
        synchronized (proof) {
            if (deadlineCheck != null) {
                deadlineCheck.cancel(false);
            }
            try {
                deadlineCheck = timers.schedule(() -> checkDeadline(session), Math.max(0, delay), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closed) {
                // the provider is closing
            }
        }
    }

    private void checkDeadline(long session) {
        long late = System.nanoTime() - proof.deadline(session);
        if (late < 0) {
            return; // a fresher proof arrived; its own check is scheduled
        }
        held.loseAll(nodeSession -> nodeSession == session, "no answer through the ZooKeeper leader proves session 0x"
                + Long.toHexString(session) + " alive any more: the member this client talks to may be cut off from"
                + " the quorum, and the leader may expire the session and give the lock to another client", null);
    }

    private long sessionId() throws Exception {
        return curator.getZookeeperClient().getZooKeeper().getSessionId();
    }

    private long currentSessionIdOrZero() {
        try {
            return sessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    // ---------------------------------------------------------------- helpers

    private static String path(Grant grant) {
        return grant.handle() instanceof String path ? path : null;
    }

    private LockException storeFailure(String name, String action, Exception e) {
        if (e instanceof LockException known) {
            return known;
        }
        if (e instanceof InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return new LockInterruptedException(name, interrupted);
        }
        if (e instanceof KeeperException keeper && keeper.code() == KeeperException.Code.CONNECTIONLOSS) {
            LockStoreException refused = requests.refusal(name, action);
            if (refused != null) {
                refused.addSuppressed(e);
                return refused;
            }
        }
        if (e instanceof KeeperException keeper && keeper.code() == KeeperException.Code.NOAUTH) {
            return new LockStoreException(name, AccessCheck.notAuthorized(settings, action, keeper), e);
        }
        return new LockStoreException(name, describe() + " failed to " + action + ": " + e, e);
    }

    /** Test hook: the nodes this provider holds now. */
    int heldNodeCount() {
        return held.size();
    }

    /** Test hook: the Curator client, to find the server it is connected to. */
    CuratorFramework curator() {
        return curator;
    }

    /** Test hook and for messages: the ZooKeeper session of this provider. */
    long currentSession() {
        return currentSessionIdOrZero();
    }

    @Override
    public Set<Capability> capabilities() {
        Set<Capability> capabilities = EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION, Capability.FAIR,
                Capability.SESSION_BOUND, Capability.INSPECT_WAITERS, Capability.BATCH_RENEW);
        if (accessControlled) {
            capabilities.add(Capability.ACCESS_CONTROL);
        }
        return capabilities;
    }

    @Override
    public Optional<Registry> registry() {
        return Optional.of(registry);
    }

    /** The URI's {@code connectionTimeout} (default 5 s). */
    @Override
    public Duration commandTimeout() {
        return settings.connectionTimeout();
    }

    /**
     * The URI's {@code connectionTimeout}: every call the shared client makes (acquire, cancel, release,
     * {@code releaseAmbiguous}, renew, inspect, list) runs under one deadline of that length
     * ({@link CallDeadline#within}), whatever number of requests it sends. Its requests go through the ZooKeeper
     * client's asynchronous API and are awaited for what is left of the deadline ({@link Requests}): no Curator retry
     * loop, no wait on the connection or on an answer outlasts it; a request whose connection was lost is sent again
     * only while the deadline allows. The client then calls on the caller's thread: handing each call to a pool
     * thread cost two thread wake-ups per call (docs/PERFORMANCE.md).
     */
    @Override
    public Optional<Duration> callTimeLimit() {
        return Optional.of(settings.connectionTimeout());
    }

    @Override
    public String describe() {
        return settings.describe();
    }

    @Override
    public void close() {
        timers.shutdownNow();
        curator.close();
    }
}
