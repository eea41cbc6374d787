package io.locksmith.etcd;

import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.locksmith.LockStoreException;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LossListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The etcd leases of one provider: one per TTL, shared by every key (held or waiting) of that TTL, with one
 * keep-alive each, so the keep-alive traffic grows with the number of distinct TTLs, not of locks.
 *
 * <p>The keep-alive is sent here (every third of the TTL) rather than by jetcd's {@code keepAlive()}, because
 * only the sender knows when a request left: the lease is guaranteed until {@code sentAt + TTL} of the last
 * answered keep-alive, and that bound is what grants and renewals report as their validity. jetcd's
 * stream also reports a broken connection as an error although the lease lives on (a leader change).
 *
 * <p>A lease that etcd no longer knows (expired, revoked), or whose guarantee ran out while keep-alives
 * failed, is lost: every grant on it is reported to the {@link LossListener}, and the next acquire of
 * that TTL grants a new lease.
 */
final class SharedLeases implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SharedLeases.class);
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /**
     * The longest pause between two background keep-alives of a lease, whatever its TTL: etcd tells nobody when
     * it ends a lease (revoked by an operator, lost with a leader), so the next keep-alive is when its holders
     * learn it. A third of a 30 s TTL left them writing beside the next holder for up to 10 s (TCK R9.13).
     */
    static final long MAX_KEEP_ALIVE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** One shared lease. */
    final class SharedLease {
        final long id;
        final long ttlSeconds;
        /** Until when (nanoTime) etcd keeps the lease without another keep-alive, at least. */
        private volatile long guaranteedUntil;
        private volatile boolean lost;
        /** Grants on this lease, by owner id: the ones to report when it is lost. */
        private final Map<String, Grant> grants = new ConcurrentHashMap<>();

        private SharedLease(long id, long ttlSeconds, long guaranteedUntil) {
            this.id = id;
            this.ttlSeconds = ttlSeconds;
            this.guaranteedUntil = guaranteedUntil;
        }

        long ttlNanos() {
            return TimeUnit.SECONDS.toNanos(ttlSeconds);
        }

        long guaranteedUntil() {
            return guaranteedUntil;
        }

        boolean isLost() {
            return lost;
        }

        void confirmed(long sentAt) {
            long until = sentAt + ttlNanos();
            if (until - guaranteedUntil > 0) {
                guaranteedUntil = until;
            }
        }
    }

    private final Lease leaseClient;
    private final ScheduledExecutorService scheduler;
    private final LossListener lossListener;
    private final String store;
    private final Duration timeout;
    private final Map<Long, SharedLease> byTtl = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private final Reachability members;

    SharedLeases(Lease leaseClient, ScheduledExecutorService scheduler, LossListener lossListener, String store,
                 Duration timeout, Reachability members) {
        this.members = members;
        this.leaseClient = leaseClient;
        this.scheduler = scheduler;
        this.lossListener = lossListener;
        this.store = store;
        this.timeout = timeout;
    }

    /**
     * The live lease for {@code ttlSeconds}, granted on first use. A lease with less than half its TTL
     * guaranteed is kept alive first, so a grant on it is good for most of its TTL.
     *
     * @throws LockStoreException if etcd could not grant or keep alive the lease
     */
    SharedLease leaseFor(long ttlSeconds, String lockName) {
        SharedLease lease = byTtl.get(ttlSeconds);
        if (lease != null && !lease.lost) {
            long now = System.nanoTime();
            if (lease.guaranteedUntil - now >= lease.ttlNanos() / 2) {
                return lease;
            }
            if (keepAliveOnce(lease, lockName, timeout)) {
                return lease;
            }
        }
        synchronized (this) {
            lease = byTtl.get(ttlSeconds);
            if (lease != null && !lease.lost) {
                return lease;
            }
            ensureOpen();
            long sentAt = System.nanoTime();
            LeaseGrantResponse granted = Calls.await(members, () -> leaseClient.grant(ttlSeconds), timeout, store, lockName,
                    "grant a lease of " + ttlSeconds + "s");
            SharedLease fresh = new SharedLease(granted.getID(), granted.getTTL(),
                    sentAt + TimeUnit.SECONDS.toNanos(granted.getTTL()));
            byTtl.put(ttlSeconds, fresh);
            scheduleKeepAlive(fresh, keepAliveInterval(fresh));
            LOG.debug("granted lease {} ({}s) on {}", Long.toHexString(fresh.id), fresh.ttlSeconds, store);
            return fresh;
        }
    }

    /** The lease with this id, if it is one of ours and not lost. */
    SharedLease byId(long leaseId) {
        for (SharedLease lease : byTtl.values()) {
            if (lease.id == leaseId && !lease.lost) {
                return lease;
            }
        }
        return null;
    }

    void track(SharedLease lease, Grant grant) {
        lease.grants.put(grant.owner().id(), grant);
        if (lease.lost) {
            // Lost between the grant and now: the loss report may have missed this one.
            report(grant, "the etcd lease " + Long.toHexString(lease.id) + " was lost just after the grant", null);
        }
    }

    void untrack(Grant grant) {
        if (grant.handle() instanceof KeyHandle handle) {
            SharedLease lease = leaseWithId(handle.leaseId());
            if (lease != null) {
                lease.grants.remove(grant.owner().id(), grant);
            }
        }
    }

    private SharedLease leaseWithId(long leaseId) {
        for (SharedLease lease : byTtl.values()) {
            if (lease.id == leaseId) {
                return lease;
            }
        }
        return null;
    }

    /**
     * Sends one keep-alive for {@code lease} and waits for it.
     *
     * @return true if etcd extended the lease; false if it does not know it any more (then it is lost)
     * @throws LockStoreException if etcd did not answer
     */
    boolean keepAliveOnce(SharedLease lease, String lockName, Duration within) {
        // Taken before the first attempt: a later attempt only makes etcd's real expiry later than we count.
        long sentAt = System.nanoTime();
        try {
            Calls.await(members, () -> leaseClient.keepAliveOnce(lease.id), within, store, lockName,
                    "keep lease " + Long.toHexString(lease.id) + " alive");
            lease.confirmed(sentAt);
            return true;
        } catch (LockStoreException e) {
            if (isLeaseNotFound(e.getCause())) {
                lost(lease, "etcd no longer knows lease " + Long.toHexString(lease.id) + " (expired or revoked)", e);
                return false;
            }
            throw e;
        }
    }

    /**
     * Sends one keep-alive for {@code lease} without waiting; the lease's guarantee grows when it is answered.
     * Failures are left to the background keep-alive.
     */
    CompletableFuture<Void> refresh(SharedLease lease) {
        long sentAt = System.nanoTime();
        return leaseClient.keepAliveOnce(lease.id)
                .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
                .handle((answer, error) -> {
                    if (error == null) {
                        lease.confirmed(sentAt);
                    }
                    return null;
                });
    }

    static boolean isLeaseNotFound(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && message.contains("requested lease not found")) {
                return true;
            }
        }
        return false;
    }

    /** A third of the TTL (jetcd's own pace), and at most {@link #MAX_KEEP_ALIVE_INTERVAL_NANOS}. */
    private static long keepAliveInterval(SharedLease lease) {
        return Math.min(lease.ttlNanos() / 3, MAX_KEEP_ALIVE_INTERVAL_NANOS);
    }

    /** The ids of the leases in use (not lost): for tests that end them as etcd would. */
    List<Long> leaseIds() {
        List<Long> ids = new ArrayList<>();
        for (SharedLease lease : byTtl.values()) {
            if (!lease.lost) {
                ids.add(lease.id);
            }
        }
        return ids;
    }

    private void scheduleKeepAlive(SharedLease lease, long delayNanos) {
        if (closed || lease.lost) {
            return;
        }
        try {
            scheduler.schedule(() -> backgroundKeepAlive(lease), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing
        }
    }

    private void backgroundKeepAlive(SharedLease lease) {
        if (closed || lease.lost) {
            return;
        }
        long sentAt = System.nanoTime();
        leaseClient.keepAliveOnce(lease.id)
                .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((answer, error) -> {
                    if (closed) {
                        return;
                    }
                    if (error == null) {
                        lease.confirmed(sentAt);
                        scheduleKeepAlive(lease, keepAliveInterval(lease));
                    } else if (isLeaseNotFound(error)) {
                        lost(lease, "etcd no longer knows lease " + Long.toHexString(lease.id) + " (expired or revoked)",
                                error);
                    } else if (System.nanoTime() - lease.guaranteedUntil >= 0) {
                        lost(lease, "keep-alives of lease " + Long.toHexString(lease.id) + " failed until its TTL of "
                                + lease.ttlSeconds + "s ran out; etcd may have deleted its keys", error);
                        // If etcd still has it, its keys must not outlive our report: drop it now.
                        leaseClient.revoke(lease.id);
                    } else {
                        LOG.debug("keep-alive of lease {} on {} failed; retrying: {}", Long.toHexString(lease.id), store,
                                error.toString());
                        scheduleKeepAlive(lease, RETRY_NANOS);
                    }
                });
    }

    void lost(SharedLease lease, String reason, Throwable cause) {
        synchronized (this) {
            if (lease.lost) {
                return;
            }
            lease.lost = true;
            byTtl.remove(lease.ttlSeconds, lease);
        }
        List<Grant> grants = new ArrayList<>(lease.grants.values());
        if (!grants.isEmpty()) {
            LOG.warn("{}: {} lock(s) on it are lost", reason, grants.size());
        }
        for (Grant grant : grants) {
            report(grant, reason, cause);
        }
    }

    private void report(Grant grant, String reason, Throwable cause) {
        try {
            lossListener.lost(grant, reason, cause);
        } catch (RuntimeException e) {
            LOG.warn("the loss listener failed for lock '{}'", grant.name(), e);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(store + " is closed");
        }
    }

    /** Revokes every lease: etcd deletes their keys at once instead of at the end of their TTL. */
    @Override
    public void close() {
        List<CompletableFuture<?>> revokes = new ArrayList<>();
        synchronized (this) {
            closed = true;
            for (SharedLease lease : byTtl.values()) {
                lease.lost = true;
                revokes.add(leaseClient.revoke(lease.id));
            }
            byTtl.clear();
        }
        try {
            CompletableFuture.allOf(revokes.toArray(CompletableFuture[]::new)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.debug("revoking the leases on {} failed; their keys end with their TTL", store, e);
        }
    }
}
