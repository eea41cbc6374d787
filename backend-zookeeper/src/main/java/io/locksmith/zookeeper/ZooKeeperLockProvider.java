package io.locksmith.zookeeper;

import io.locksmith.HolderIdentity;
import io.locksmith.LockException;
import io.locksmith.LockInfo;
import io.locksmith.LockInterruptedException;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;
import io.locksmith.spi.Registry;
import io.locksmith.spi.RenewRequest;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
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
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
    /** How soon a deletion that failed for a connection problem is sent again. */
    private static final long DELETE_RETRY_MILLIS = 500;

    private final CuratorFramework curator;
    private final ZooKeeperSettings settings;
    private final LockPaths paths;
    private final HeldNodes held;
    private final ScheduledThreadPoolExecutor timers;
    private final ZooKeeperRegistry registry;
    /** Owner id to the node it keeps while it waits, between attempts. */
    private final Map<String, String> waitingNodes = new ConcurrentHashMap<>();
    /**
     * Owners whose wait was cancelled, with when (nanoTime): an attempt of theirs still under way (cut short by the end
     * of its wait, it goes on in the background) must not leave its queue node behind after the cancel. Owner ids
     * are unique per acquire, so a cancelled owner never waits again; entries are dropped after a minute.
     */
    private final Map<String, Long> cancelledOwners = new ConcurrentHashMap<>();
    /** Lock path to the client's callbacks for changes in its queue. */
    private final Map<String, List<Runnable>> subscribers = new ConcurrentHashMap<>();
    /** Nodes to delete that the server has not confirmed deleted yet (sent while the connection was down). */
    private final Set<String> pendingDeletes = ConcurrentHashMap.newKeySet();
    /** One watcher for every predecessor, so ZooKeeper keeps one registration per watched node. */
    private final Watcher predecessorWatcher = this::predecessorChanged;
    private final Watcher heldNodeWatcher = this::heldNodeChanged;
    private final SessionProof proof = new SessionProof();
    /** When the connection was last seen suspended or lost (nanoTime): a new session was asked for after it. */
    private volatile long disconnectedAt;
    private ScheduledFuture<?> deadlineCheck;

    /**
     * @param connectingSince a time (nanoTime) before the client asked for its first session
     */
    ZooKeeperLockProvider(CuratorFramework curator, ZooKeeperSettings settings, ProviderContext context,
                          long connectingSince) {
        this.curator = curator;
        this.settings = settings;
        this.paths = new LockPaths(settings.basePath());
        this.timers = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "locksmith-zookeeper-leases");
            thread.setDaemon(true);
            return thread;
        });
        this.timers.setRemoveOnCancelPolicy(true);
        this.held = new HeldNodes(timers, context.lossListener(), this::deleteInBackground);
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
        String name = request.name();
        Owner owner = request.owner();
        String lockPath = paths.lockPath(name);
        String node = waitingNodes.remove(owner.id());
        boolean keepNode = false;
        boolean failed = true;
        boolean failedByInterrupt = false;
        try {
            if (node != null && !isLiveNode(node)) {
                // Created in a session that has ended: it is not ours to hold, whatever it says.
                deleteIfExists(node);
                node = null;
            }
            for (int recreations = 0; recreations <= MAX_RECREATIONS; ) {
                if (node == null) {
                    node = create(name, owner);
                }
                List<String> queue = withoutOrphansOf(owner, node, LockPaths.queue(children(lockPath)));
                int place = queue.indexOf(LockPaths.nodeName(node));
                if (place < 0) {
                    // Deleted behind our back (session expiry, an operator): queue again at the end.
                    node = null;
                    recreations++;
                    continue;
                }
                if (place == 0) {
                    Stat stat = curator.checkExists().usingWatcher(heldNodeWatcher).forPath(node);
                    // Read the session after the node: the read went over the current connection, so a node of
                    // an ended session (Curator replaced it while we were blocked) cannot pass for ours.
                    long session = sessionId();
                    if (stat == null || stat.getEphemeralOwner() != session) {
                        deleteIfExists(node);
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
                    held.add(grant, session, request.ttl());
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
                if (curator.checkExists().usingWatcher(predecessorWatcher).forPath(predecessor) == null) {
                    continue; // it went between the two reads: look again
                }
                waitingNodes.put(owner.id(), node);
                if (cancelledOwners.containsKey(owner.id()) && waitingNodes.remove(owner.id(), node)) {
                    // The wait was cancelled while this attempt ran: the finally block deletes the node now.
                    failed = false;
                    return Optional.empty();
                }
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
                    deleteInBackground(node); // the connection is likely down: do not block on it again
                } else {
                    deleteNow(node); // before returning, so nobody sees a waiter that has gone
                }
            }
        }
    }

    private String create(String name, Owner owner) throws Exception {
        byte[] data = new LockNodeData(owner.id(), owner.holder()).toBytes();
        // Containers: the server deletes a lock's node once its last child is gone, so short-lived names
        // leave nothing behind. No Curator "protection" needed: the owner id in the name finds the node
        // again after a create whose answer was lost.
        return curator.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(paths.nodePrefix(name, owner.id()), data);
    }

    /**
     * Removes, from the queue and from the store, the owner's nodes other than {@code node}. Curator retries a
     * create whose answer was lost with the connection, and the first attempt may have succeeded: that orphan
     * has the owner's name, sits ahead of the owner's real node, and would make the owner wait for itself.
     */
    private List<String> withoutOrphansOf(Owner owner, String node, List<String> queue) {
        String prefix = LockPaths.ownerPrefix(owner.id());
        String own = LockPaths.nodeName(node);
        List<String> kept = new ArrayList<>(queue.size());
        for (String child : queue) {
            if (child.startsWith(prefix) && !child.equals(own)) {
                LOG.debug("deleting {}'s orphan node {} (a create retried after a lost answer)", owner.id(), child);
                deleteNow(LockPaths.parent(node) + "/" + child);
            } else {
                kept.add(child);
            }
        }
        return kept;
    }

    /** The children of a lock node; none if the container is gone (deleted by the server once empty). */
    private List<String> children(String lockPath) throws Exception {
        try {
            return curator.getChildren().forPath(lockPath);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /** Whether {@code node} exists and belongs to the current session. */
    private boolean isLiveNode(String node) throws Exception {
        Stat stat = curator.checkExists().forPath(node);
        return stat != null && stat.getEphemeralOwner() == sessionId();
    }

    // ---------------------------------------------------------------- renew and release

    @Override
    public boolean renew(Grant grant, Duration ttl) {
        HeldNodes.HeldNode node = held.get(path(grant));
        if (node == null) {
            return false;
        }
        try {
            // Through the leader first: a member cut from the quorum answers reads from its stale state.
            syncWithLeader(node.path());
            // Re-arming the watch costs nothing (one registration per watcher and node).
            Stat stat = curator.checkExists().usingWatcher(heldNodeWatcher).forPath(node.path());
            return confirm(node, stat, sessionId(), ttl);
        } catch (Exception e) {
            throw storeFailure(grant.name(), "renew", e);
        }
    }

    /**
     * Renews many locks with one {@code sync} and one read request ({@code multiRead} of the held nodes, ZooKeeper
     * 3.6+): the same checks as {@link #renew}, for a whole client's locks in two round trips, without a write.
     */
    @Override
    public List<Boolean> renewAll(List<RenewRequest> requests) {
        if (requests.size() < 2) {
            return LockProvider.super.renewAll(requests);
        }
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
            renewed.add(confirm(node, stat, session, requests.get(i).ttl()));
        }
        return renewed;
    }

    private List<OpResult> multiRead(List<Op> reads) throws Exception {
        return RetryLoop.callWithRetry(curator.getZookeeperClient(), () -> {
            try {
                return curator.getZookeeperClient().getZooKeeper().multi(reads);
            } catch (KeeperException e) {
                if (e.getResults() != null && e.getResults().size() == reads.size()) {
                    return e.getResults(); // a node is missing: its result says so, the others are still good
                }
                throw e;
            }
        });
    }

    /** The renewal check: the node exists, in the session that created it, which is still ours. */
    private boolean confirm(HeldNodes.HeldNode node, Stat stat, long currentSession, Duration ttl) {
        if (stat == null || stat.getEphemeralOwner() != node.sessionId || stat.getCzxid() != node.grant.fencingToken()
                || currentSession != node.sessionId) {
            held.remove(node.path());
            deleteInBackground(node.path());
            return false;
        }
        held.extend(node, ttl);
        return true;
    }

    @Override
    public boolean release(Grant grant) {
        String path = path(grant);
        if (path == null) {
            releaseAmbiguous(grant.name(), grant.owner());
            return false;
        }
        HeldNodes.HeldNode node = held.remove(path);
        if (node == null) {
            // Already reported lost or counted out: make sure it goes, without making the caller wait on a
            // connection that may be down.
            deleteInBackground(path);
            return false;
        }
        try {
            // The path holds the owner id, and owner ids are never reused: deleting it cannot hit another
            // holder's node. Leases are often closed in a finally block of an interrupted thread: release anyway.
            uninterruptibly(() -> curator.delete().forPath(path));
            return sessionId() == node.sessionId;
        } catch (KeeperException.NoNodeException e) {
            return false;
        } catch (Exception e) {
            deleteInBackground(path);
            throw storeFailure(grant.name(), "release", e);
        }
    }

    @Override
    public void releaseAmbiguous(String name, Owner owner) {
        String waiting = waitingNodes.remove(owner.id());
        if (waiting != null) {
            deleteInBackground(waiting);
        }
        for (String path : held.pathsOf(owner.id())) {
            held.remove(path);
            deleteInBackground(path);
        }
        String lockPath = paths.lockPath(name);
        String prefix = LockPaths.ownerPrefix(owner.id());
        try {
            // Often called after an interrupted acquire, whose create may have reached the server all the same.
            List<String> children = uninterruptibly(() -> children(lockPath));
            for (String child : children) {
                if (child.startsWith(prefix)) {
                    deleteNow(lockPath + "/" + child);
                }
            }
        } catch (Exception e) {
            throw storeFailure(name, "clean up after an ambiguous acquire", e);
        }
    }

    @Override
    public void cancel(String name, Owner owner) {
        long now = System.nanoTime();
        cancelledOwners.values().removeIf(at -> now - at > TimeUnit.MINUTES.toNanos(1));
        // First: an attempt still under way then sees it, or has put its node where the next line finds it.
        cancelledOwners.put(owner.id(), now);
        String node = waitingNodes.remove(owner.id());
        if (node != null) {
            deleteNow(node);
        }
    }

    // ---------------------------------------------------------------- inspect, notify

    @Override
    public Optional<LockInfo> inspect(String name) {
        String lockPath = paths.lockPath(name);
        try {
            List<String> queue;
            try {
                queue = LockPaths.queue(curator.getChildren().forPath(lockPath));
            } catch (KeeperException.NoNodeException e) {
                return Optional.empty();
            }
            HolderIdentity holder = null;
            long token = -1;
            List<HolderIdentity> waiters = new ArrayList<>();
            for (String child : queue) {
                Stat stat = new Stat();
                byte[] data;
                try {
                    data = curator.getData().storingStatIn(stat).forPath(lockPath + "/" + child);
                } catch (KeeperException.NoNodeException e) {
                    continue; // left while we read: not in the queue any more
                }
                HolderIdentity identity = LockNodeData.fromBytes(data).holder();
                if (holder == null) {
                    holder = identity;
                    token = stat.getCzxid();
                } else {
                    waiters.add(identity);
                }
            }
            return holder == null ? Optional.empty()
                    : Optional.of(new LockInfo(name, holder, token, null, waiters));
        } catch (Exception e) {
            throw storeFailure(name, "inspect", e);
        }
    }

    @Override
    public AutoCloseable subscribe(String name, Runnable onChange) {
        String lockPath = paths.lockPath(name);
        subscribers.computeIfAbsent(lockPath, k -> new CopyOnWriteArrayList<>()).add(onChange);
        return () -> subscribers.computeIfPresent(lockPath, (k, list) -> {
            list.remove(onChange);
            return list.isEmpty() ? null : list;
        });
    }

    private void predecessorChanged(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None || event.getPath() == null) {
            notifyAllSubscribers();
            return;
        }
        notifySubscribers(LockPaths.parent(event.getPath()));
    }

    private void heldNodeChanged(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            held.lose(event.getPath(), "the lock node " + event.getPath() + " was deleted behind the holder's back"
                    + " (its session expired, or an operator removed it)", null);
            notifySubscribers(LockPaths.parent(event.getPath()));
        }
    }

    private void notifySubscribers(String lockPath) {
        List<Runnable> callbacks = subscribers.get(lockPath);
        if (callbacks != null) {
            callbacks.forEach(ZooKeeperLockProvider::runQuietly);
        }
    }

    private void notifyAllSubscribers() {
        subscribers.values().forEach(list -> list.forEach(ZooKeeperLockProvider::runQuietly));
    }

    private static void runQuietly(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.warn("lock release callback failed", e);
        }
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
                notifyAllSubscribers();
            }
            case RECONNECTED -> {
                retryPendingDeletes();
                long current = currentSessionIdOrZero();
                held.loseAll(session -> session != current, "reconnected to ZooKeeper with a new session: the old"
                        + " session and its lock nodes are gone", null);
                notifyAllSubscribers();
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
            rc = answer.get(settings.connectionTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new LockStoreException(null, describe() + ": no answer through the ZooKeeper leader within "
                    + settings.connectionTimeout().toMillis() + " ms (connectionTimeout): the member this client"
                    + " talks to may be cut off from the quorum", e);
        } catch (ExecutionException e) {
            throw new LockStoreException(null, describe() + ": sync failed: " + e.getCause(), e.getCause());
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
        long giveUpAt = System.nanoTime() + settings.connectionTimeout().toNanos();
        long pause = Math.max(TimeUnit.MILLISECONDS.toNanos(10), negotiatedTimeoutNanos() / 12);
        while (proof.deadline(session) - System.nanoTime() <= 0) {
            if (System.nanoTime() - giveUpAt >= 0) {
                return false;
            }
            syncWithLeader("/");
            if (proof.deadline(session) - System.nanoTime() <= 0) {
                LockSupport.parkNanos(pause); // the next contact must come later to count
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while proving the ZooKeeper session alive");
                }
            }
        }
        return true;
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

    private void deleteIfExists(String path) throws Exception {
        try {
            curator.delete().forPath(path);
        } catch (KeeperException.NoNodeException ignored) {
            // gone already
        }
    }

    /**
     * Deletes a node and waits for it; if the store cannot be reached, the deletion is left to
     * {@link #deleteInBackground}, so the node goes as soon as the connection is back, or with its session.
     */
    private void deleteNow(String path) {
        try {
            uninterruptibly(() -> curator.delete().forPath(path));
        } catch (KeeperException.NoNodeException ignored) {
            // gone already
        } catch (Exception e) {
            LOG.debug("deleting {} failed; trying again in the background", path, e);
            deleteInBackground(path);
        }
    }

    /**
     * Runs a clean-up step to its end even when the thread is interrupted: a cancelled wait must not leave
     * its queue node behind because the interrupt that cancelled it also aborted the delete. The interrupt
     * flag is set again afterwards, for the caller.
     */
    private static <T> T uninterruptibly(Callable<T> step) throws Exception {
        boolean interrupted = Thread.interrupted();
        try {
            return step.call();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Deletes a node without waiting. Until the server confirms it (or says it is gone), the path stays in
     * {@link #pendingDeletes} and is tried again on every reconnection: a lock reported lost while the
     * connection was down must not stay taken for as long as the session lives.
     */
    private void deleteInBackground(String path) {
        pendingDeletes.add(path);
        try {
            curator.delete().inBackground((client, event) -> {
                int code = event.getResultCode();
                LOG.debug("background deletion of {}: {}", path, KeeperException.Code.get(code));
                if (code == KeeperException.Code.OK.intValue() || code == KeeperException.Code.NONODE.intValue()
                        || code == KeeperException.Code.SESSIONEXPIRED.intValue()) {
                    pendingDeletes.remove(path); // deleted, or gone with its session
                } else {
                    retryDeleteLater(path);
                }
            }).forPath(path);
        } catch (Exception e) {
            LOG.debug("could not send the deletion of {}; tried again on reconnection", path, e);
        }
    }

    private void retryDeleteLater(String path) {
        try {
            timers.schedule(() -> {
                if (pendingDeletes.contains(path)) {
                    deleteInBackground(path);
                }
            }, DELETE_RETRY_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // the provider is closing: its session ends, and its nodes with it
        }
    }

    private void retryPendingDeletes() {
        for (String path : new ArrayList<>(pendingDeletes)) {
            deleteInBackground(path);
        }
    }

    private LockException storeFailure(String name, String action, Exception e) {
        if (e instanceof LockException known) {
            return known;
        }
        if (e instanceof InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return new LockInterruptedException(name, interrupted);
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
        return EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION, Capability.FAIR,
                Capability.SESSION_BOUND, Capability.INSPECT_WAITERS, Capability.BATCH_RENEW);
    }

    @Override
    public Optional<Registry> registry() {
        return Optional.of(registry);
    }

    /**
     * The URI's {@code connectionTimeout} (default 5 s), which Curator applies per operation; its retries could
     * stretch one call well beyond it while the server is gone, so the client stops waiting after this.
     */
    @Override
    public Duration commandTimeout() {
        return settings.connectionTimeout();
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
